import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';

// Real OS processes (and a browser) start slowly on a loaded 2-core machine; they are bounded
// by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import {
  FIXTURE_TEXT,
  FixtureServer,
} from '../../examples/knowledge-assistant/fixture-server.test-support.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { countOf, hidden, textOf, visible } from './wait.js';
import { startWebUi, type WebUi } from './web-ui.js';

// Seed 003 in the web UI, as a person uses it: a domain drafted, corrected and approved
// in the review dialog (which survives a reload), then a PDF's facts picked.
let ui: WebUi;
let browser: Browser;
let fixtures: FixtureServer;

beforeAll(async () => {
  // The fixtures are served on this machine, where the app's links may not lead by default.
  process.env.KNOWLEDGE_ALLOW_PRIVATE_NETWORKS = 'true';
  [ui, browser, fixtures] = await Promise.all([
    startWebUi(),
    launchChromium(),
    FixtureServer.start(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await ui?.close();
  await fixtures?.stop();
});

async function say(page: Page, words: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(words);
  await box.press('Enter');
}

describe('knowledge-assistant in the web UI', () => {
  it('creates a domain through the review dialog, then saves the facts picked from a PDF', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
    const page = await context.newPage();
    await page.goto(`${ui.baseUrl}/`);
    await page.evaluate(() => localStorage.setItem('holdpoint.user', 'ann'));
    await page.goto(`${ui.baseUrl}/?app=knowledge-assistant`);
    await say(page, 'hello');
    await visible(page.getByText('What is your name?'));
    await say(page, 'Ann');
    await visible(page.getByText(/Nice to meet you, Ann!/));
    await say(page, 'Create a domain');
    await visible(page.getByText(/Describe the knowledge domain/));
    await say(page, 'bread baking');

    const dialog = page.getByRole('dialog');
    await visible(dialog.getByRole('heading', { name: 'Review domain draft' }));
    await textOf(dialog).toContain('Save the domain "Bread Baking"');
    // A reload keeps the pause: the dialog comes back with the same draft.
    await page.reload();
    await visible(dialog.getByRole('heading', { name: 'Review domain draft' }));
    await dialog
      .getByLabel('Or type your answer')
      .fill('Rust programming: ownership, borrowing and lifetimes in rust');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await textOf(dialog).toContain('Save the domain "Rust Programming"');
    await page.screenshot({ path: `${ARTIFACTS}knowledge-review.png` });
    await dialog.getByRole('radio', { name: 'Approve' }).check();
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await hidden(dialog);
    await visible(page.getByText(/Domain d-1 is saved\./));
    await visible(page.getByText(/d-1: Rust Programming/).last());

    const url = `${fixtures.url}/docs/rust.pdf`;
    await say(page, `Please read ${url}`);
    await visible(dialog.getByRole('heading', { name: 'Pick facts to save' }));
    await countOf(dialog.getByRole('checkbox')).toBe(2);
    await dialog.getByRole('checkbox', { name: `f2: ${FIXTURE_TEXT.pdf[1]}` }).check();
    await page.screenshot({ path: `${ARTIFACTS}knowledge-facts.png` });
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await hidden(dialog);
    await visible(page.getByText(/Saved 1 fact\(s\) to your memory\./));
    await visible(page.getByText(new RegExp(`Finished ${url}: saved 1 fact\\(s\\)`)));
    await context.close();
  });
});
