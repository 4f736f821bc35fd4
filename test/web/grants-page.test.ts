import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Real OS processes (and a browser) start slowly on a loaded 2-core machine; they are bounded
// by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { JsonClient } from '../support/json-client.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { focusOf, textOf, visible } from './wait.js';
import { startWebUi, type WebUi } from './web-ui.js';

// A person sees the grants made on their calls and revokes one, in a real browser
// against a real server: a grant made over REST is listed (tool, app, scope, the calls
// it covers, who granted it, how long it has left), revoked after a confirmation, shown
// revoked, and a later call of the tool pauses again.
const GRANTS_APP = fileURLToPath(new URL('../support/grants-app.ts', import.meta.url));

let ui: WebUi;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  ui = await startWebUi(['--app', GRANTS_APP]);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await ui?.close();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

/** A page of a browser of its own, signed in (dev) as `user`, at `path`. */
async function personAt(path: string, user: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${ui.baseUrl}/`);
  await page.evaluate((name) => localStorage.setItem('holdpoint.user', name), user);
  await page.goto(`${ui.baseUrl}${path}`);
  return page;
}

describe('the grants page', () => {
  it('lists a grant made with an approval, revokes it after a confirmation, and the tool asks again', async () => {
    const ann = new JsonClient(ui.baseUrl, { user: 'ann' });
    const asked = await ann.post('/api/agent/start', { app: 'grants', query: 'tip 5 jiro' });
    expect(asked.body.status).toBe('pending_approval');
    const [approval] = asked.body.approvals;
    const decided = await ann.post(`/api/approvals/${approval.approval_id}`, {
      approved: true,
      args_hash: approval.args_hash,
      grant: { scope: 'user', hours: 2, match: { amount: { lte: 10 } } },
    });
    expect(decided.status).toBe(200);
    // In force: a later call it covers, in another conversation, runs without asking.
    const covered = await ann.post('/api/agent/start', { app: 'grants', query: 'tip 7 mia' });
    expect(covered.body.status).toBe('completed');

    const page = await personAt('/', 'ann');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Grants' }).click();
    await visible(page.getByRole('heading', { name: 'Your grants' }));
    const table = page.getByRole('table', { name: /Your grants/ });
    const row = table.getByRole('row', { name: /^Tip/ });
    await visible(row);
    await textOf(row.getByRole('cell')).toMatch(
      /^grants\nAll your conversations\nAmount is at most 10\nann (a few seconds|\d+ s) ago\nExpires in 2 h\nRevoke$/,
    );
    await page.screenshot({ path: `${ARTIFACTS}grants-page.png` });

    await row.getByRole('button', { name: 'Revoke Tip (grants)' }).click();
    const yes = row.getByRole('button', { name: 'Yes, revoke' });
    await focusOf(yes).toBe(true);
    await yes.click();
    const state = row.getByRole('cell', { name: 'Revoked by ann' });
    await visible(state);
    await focusOf(state).toBe(true);
    expect(await row.getByRole('button').count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}grants-page-revoked.png` });
    // On a phone the table scrolls in its frame; the page itself does not overflow.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() =>
        page.evaluate(() =>
          document.documentElement.scrollWidth > window.innerWidth
            ? [...document.querySelectorAll('*')]
                .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
                .map((el) => `${el.tagName}.${el.className}`)
                .slice(0, 8)
            : [],
        ),
      )
      .toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}grants-page-390.png` });

    // The server says so too, and the next call the grant covered asks again.
    const listed = await ann.get('/api/grants');
    expect(listed.body.grants[0]).toMatchObject({ in_force: false, revoked_by: 'ann' });
    const again = await ann.post('/api/agent/start', { app: 'grants', query: 'tip 7 mia' });
    expect(again.body.status).toBe('pending_approval');
    expect(again.body.approvals[0].tool_name).toBe('tip');
  });
});
