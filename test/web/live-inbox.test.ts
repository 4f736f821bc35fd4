import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Real OS processes (and a browser) start slowly on a loaded 2-core machine; they are bounded
// by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { JsonClient } from '../support/json-client.js';
import { ARTIFACTS } from './browser.js';
import { countOf, hidden, textOf, visible } from './wait.js';
import { webUiInChromium } from './web-ui-in-chromium.js';

// The inbox by push in a real browser: an approver's page counts what waits for her in
// the nav and the tab's title as pauses are made and decided elsewhere (through the API),
// without reloading or polling, and tells her with a browser notification once she
// allowed them. A headless browser shows no OS notification that a test could observe,
// so the page's `Notification` is wrapped (an init script) to record what it is asked to
// show; the permission itself is the browser's own, granted through the context.
const web = webUiInChromium();
const contexts: BrowserContext[] = [];

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

/** Wraps `Notification` so the page's notifications are recorded (`__shown`), permission kept real. */
const RECORD_NOTIFICATIONS = () => {
  const Real = window.Notification;
  const shown: Notification[] = [];
  class Recorded extends EventTarget {
    onclick: (() => void) | null = null;
    constructor(
      readonly title: string,
      readonly options?: NotificationOptions,
    ) {
      super();
      shown.push(this as unknown as Notification);
    }
    static get permission() {
      return Real.permission;
    }
    static requestPermission() {
      return Real.requestPermission();
    }
    close() {}
  }
  Object.assign(window, { Notification: Recorded, __shown: shown });
};

/** A page of a browser of its own, signed in (dev) as `user` with `roles`, at `path`. */
async function personAt(path: string, user: string, roles: string): Promise<Page> {
  const context = await web.browser.newContext({ viewport: { width: 1200, height: 860 } });
  contexts.push(context);
  await context.addInitScript(RECORD_NOTIFICATIONS);
  const page = await context.newPage();
  await page.goto(`${web.ui.baseUrl}/`);
  await page.evaluate(
    ([name, typed]) => {
      localStorage.setItem('holdpoint.user', name ?? '');
      localStorage.setItem('holdpoint.roles', typed ?? '');
    },
    [user, roles],
  );
  await page.goto(`${web.ui.baseUrl}${path}`);
  return page;
}

const shownTitles = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as { __shown: { title: string }[] }).__shown.map((n) => n.title),
  );

describe('the live inbox', () => {
  it('counts in the nav and the title, notifies once allowed, and follows decisions, without reloading', async () => {
    const maria = await personAt('/approvals', 'maria', 'approver');
    const nav = maria.getByRole('navigation', { name: 'Main' });
    await visible(maria.getByText('Nothing waits for you'));
    await visible(nav.getByRole('link', { name: 'Approvals', exact: true }));
    expect(await maria.title()).toBe('Holdpoint');
    // Asked on her click only; the browser's answer is the context's permission.
    const enable = maria.getByRole('button', { name: 'Enable notifications' });
    await visible(enable);
    await maria.context().grantPermissions(['notifications'], { origin: web.ui.baseUrl });
    await enable.click();
    await hidden(enable);
    // Set on this document: a reload would lose it.
    await maria.evaluate(() => Object.assign(window, { __sameDocument: true }));
    await nav.getByRole('link', { name: 'Chat' }).click();
    await visible(maria.getByRole('textbox', { name: 'Message' }));

    const ann = new JsonClient(web.ui.baseUrl, { user: 'ann' });
    const asked = await ann.post('/api/agent/start', {
      app: 'payments',
      query: 'Send $200 to Jiro',
    });
    expect(asked.body.status).toBe('pending_approval');
    const approvalId: string = asked.body.approvals[0].approval_id;

    await textOf(nav.getByRole('link', { name: /^Approvals/ })).toBe('Approvals (1)');
    await expect.poll(() => maria.title()).toBe('(1) Holdpoint');
    await expect.poll(() => shownTitles(maria)).toEqual(['Approval needed: process_payment']);
    await maria.screenshot({ path: `${ARTIFACTS}live-inbox-count.png` });

    // Its click brings the tab forward on the inbox, where it waits.
    await maria.evaluate(() =>
      (window as unknown as { __shown: { onclick: () => void }[] }).__shown[0]?.onclick(),
    );
    expect(new URL(maria.url()).pathname).toBe('/approvals');
    const list = maria.getByRole('list', { name: 'Pending approvals' });
    await countOf(list.getByRole('listitem')).toBe(1);

    // Decided elsewhere: the count, the title and the list follow.
    const bob = new JsonClient(web.ui.baseUrl, { user: 'bob', roles: ['approver'] });
    const decided = await bob.post(`/api/approvals/${approvalId}`, { approved: true });
    expect(decided.status).toBe(200);
    await textOf(nav.getByRole('link', { name: /^Approvals/ })).toBe('Approvals');
    await expect.poll(() => maria.title()).toBe('Holdpoint');
    await visible(maria.getByText('Nothing waits for you'));
    expect(await maria.evaluate(() => '__sameDocument' in window)).toBe(true);
    expect(await shownTitles(maria)).toHaveLength(1);
  });
});
