import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './browser.js';
import { startWebUi, type WebUi } from './web-ui.js';

/** The web UI and the Chromium a test file drives it with. */
export interface WebUiInChromium {
  readonly ui: WebUi;
  readonly browser: Browser;
}

/**
 * Test support: for the calling test file, the web UI (`startWebUi`) and one Chromium,
 * started before its tests and closed after them. Read `ui` and `browser` from the
 * returned object once the file's tests run.
 */
export function webUiInChromium(): WebUiInChromium {
  let ui: WebUi | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    ui = await startWebUi();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await ui?.close();
  });
  return {
    get ui() {
      if (!ui) throw new Error('the web UI starts in beforeAll');
      return ui;
    },
    get browser() {
      if (!browser) throw new Error('Chromium starts in beforeAll');
      return browser;
    },
  };
}
