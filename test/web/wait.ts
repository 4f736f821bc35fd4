import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

const TIMEOUT = 10_000;

/** Waits until the locator is visible. */
export const visible = (locator: Locator, timeout = TIMEOUT) =>
  locator.first().waitFor({ state: 'visible', timeout });

/** Waits until the locator is hidden or gone. */
export const hidden = (locator: Locator, timeout = TIMEOUT) =>
  locator.first().waitFor({ state: 'hidden', timeout });

/** Polls the locator's text (all matches joined) until the assertion holds. */
export const textOf = (locator: Locator, timeout = TIMEOUT) =>
  expect.poll(async () => (await locator.allTextContents()).join('\n'), { timeout });

/** Polls how many elements match. */
export const countOf = (locator: Locator, timeout = TIMEOUT) =>
  expect.poll(() => locator.count(), { timeout });

/** Polls whether the locator's element has focus. */
export const focusOf = (locator: Locator, timeout = TIMEOUT) =>
  expect.poll(() => locator.evaluate((el) => el === document.activeElement), { timeout });
