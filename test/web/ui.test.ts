import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Real OS processes (and a browser) start slowly on a loaded 2-core machine; they are bounded
// by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { signedInAs, TESTER } from '../support/json-client.js';
import { ARTIFACTS } from './browser.js';
import { countOf, focusOf, hidden, textOf, visible } from './wait.js';
import { webUiInChromium } from './web-ui-in-chromium.js';

const web = webUiInChromium();
let context: BrowserContext;
let page: Page;
/** Browsers of other people a test opened, closed after it. */
const contexts: BrowserContext[] = [];

beforeEach(async () => {
  context = await web.browser.newContext({ viewport: { width: 1200, height: 860 } });
  page = await context.newPage();
});
afterEach(async () => {
  await Promise.all([context, ...contexts.splice(0)].map((c) => c?.close()));
});

const shot = (target: Page, name: string) =>
  target.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: false });

/** Opens `query` signed in (the dev mode's "Signed in as") as `user` with `roles`. */
async function open(target: Page, query: string, user = 'tester', roles = ''): Promise<void> {
  await target.goto(`${web.ui.baseUrl}/`);
  await target.evaluate(
    ([name, typed]) => {
      localStorage.setItem('holdpoint.user', name ?? '');
      localStorage.setItem('holdpoint.roles', typed ?? '');
    },
    [user, roles],
  );
  await target.goto(`${web.ui.baseUrl}/${query}`);
}

/** A page of a browser of its own (its own sign-in), signed in as an approver: maria. */
async function approverPage(query: string): Promise<Page> {
  const other = await web.browser.newContext({ viewport: { width: 1200, height: 860 } });
  contexts.push(other);
  const target = await other.newPage();
  await open(target, query, 'maria', 'approver');
  return target;
}

async function say(target: Page, words: string): Promise<void> {
  const box = target.getByRole('textbox', { name: 'Message' });
  await box.fill(words);
  await box.press('Enter');
}

const dialogOf = (target: Page) => target.getByRole('dialog');

describe('web UI', () => {
  it('lists exactly the apps the server serves, starting with its default app', async () => {
    const served = (await (
      await fetch(`${web.ui.baseUrl}/api/apps`, { headers: TESTER })
    ).json()) as {
      apps: { name: string; label: string; examples: string[] }[];
      default_app: string;
    };
    const defaultApp = served.apps.find((app) => app.name === served.default_app);
    await open(page, '');
    const toolbar = page.getByRole('group', { name: 'App' });
    await countOf(toolbar.getByRole('radio')).toBe(served.apps.length);
    expect(await toolbar.locator('label').allTextContents()).toEqual(
      served.apps.map((app) => app.label),
    );
    expect(await toolbar.getByRole('radio', { name: defaultApp?.label }).isChecked()).toBe(true);
    await visible(page.getByRole('heading', { name: defaultApp?.label }));
    const examples = page.getByRole('list', { name: 'Try one of these' }).getByRole('button');
    expect(await examples.allTextContents()).toEqual(defaultApp?.examples);
    expect(new URL(page.url()).searchParams.get('app')).toBe(served.default_app);
  });

  it('image-studio over SSE: approve in the dialog, then 10 images', async () => {
    await open(page, '?app=image-studio');
    await shot(page, 'chat-empty');
    await say(page, 'Generate 10 images');
    const dialog = dialogOf(page);
    await visible(dialog);
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    await visible(dialog.getByRole('heading', { name: 'Request image generation' }));
    await textOf(dialog).toContain('Large request: 10 images');
    await textOf(dialog).toContain('Num images');
    await textOf(dialog).toMatch(/Expires in \d+:\d\d/);
    await focusOf(dialog.getByRole('button', { name: 'Approve' })).toBe(true);
    await shot(page, 'dialog-image-studio');

    await dialog.getByRole('button', { name: 'Approve' }).click();
    await hidden(dialog);
    await countOf(page.getByRole('img', { name: /^Generated \d+ of/ })).toBe(10);
    await visible(page.getByText('Here are the 10 images'));
    expect(new URL(page.url()).searchParams.get('session')).toBeTruthy();
    await shot(page, 'chat-images');
  });

  it('image-studio over SSE: reject with a reason, no images', async () => {
    await open(page, '?app=image-studio');
    await say(page, 'Generate 10 images');
    const dialog = dialogOf(page);
    await visible(dialog);
    await dialog.getByLabel(/Reason/).fill('too many for now');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await hidden(dialog);
    await visible(page.getByText(/Rejected: “too many for now”/));
    await textOf(page.locator('.message--assistant .message__text').last()).toMatch(/rejected/i);
    await countOf(page.getByRole('img', { name: /^Generated \d+ of/ })).toBe(0);
    await shot(page, 'chat-rejected');
  });

  it('payments over a continuous WebSocket: keyboard only, one stream; an approver signs off elsewhere', async () => {
    const sent: string[] = [];
    let sockets = 0;
    page.on('websocket', (socket) => {
      sockets += 1;
      socket.on('framesent', (frame) => sent.push(String(frame.payload)));
    });
    await open(page, '?app=payments&mode=ws', 'ann', 'approver');
    await say(page, 'Send $200 to Jiro');
    // Ann asked for it: though an approver, she may not approve it, so she is not asked to.
    const waiting = page.getByRole('region', { name: 'Waiting for an approver' });
    await textOf(waiting).toContain('Waiting for an approver (role approver)');
    await textOf(waiting).toContain('You asked for it, so someone else must approve it.');
    expect(await dialogOf(page).count()).toBe(0);
    // Maria, an approver, opens the same conversation and approves with the keyboard.
    await page.waitForURL(/session=/);
    const maria = await approverPage(page.url().slice(web.ui.baseUrl.length + 1));
    const hers = dialogOf(maria);
    await visible(hers);
    await textOf(hers).toContain('Send 200 USD to Jiro?');
    await textOf(hers).toContain('Recipient');
    await textOf(hers).toContain('Jiro');
    // Tab stays inside the dialog.
    for (let i = 0; i < 8; i++) {
      await maria.keyboard.press('Tab');
      expect(await hers.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    }
    await hers.getByRole('button', { name: 'Approve' }).focus();
    await shot(maria, 'dialog-payments');
    await maria.keyboard.press('Enter');
    await hidden(hers);
    // Ann's one stream carries the rest.
    const receipt = page.getByRole('region', { name: 'Payment receipt' });
    await visible(receipt);
    await textOf(receipt).toMatch(/TXN-/);
    await textOf(receipt).toContain('200 USD');
    await textOf(receipt).toContain('Jiro');
    await shot(page, 'chat-receipt');
    expect(sockets).toBe(1);
    expect(sent.filter((f) => JSON.parse(f).type === 'send')).toHaveLength(1);
  });

  for (const mode of ['sse', 'ws'] as const) {
    it(`picker over ${mode}: two sequential inputs through the dialog`, async () => {
      await open(page, `?app=picker${mode === 'ws' ? '&mode=ws' : ''}`);
      await say(page, 'Pick a fruit');
      const dialog = dialogOf(page);
      await visible(dialog);
      await textOf(dialog).toContain('Input needed');
      expect(await dialog.getByRole('button', { name: 'Submit' }).isDisabled()).toBe(true);
      await dialog.getByRole('radio', { name: 'Banana' }).check();
      await shot(page, `dialog-picker-${mode}`);
      await dialog.getByRole('button', { name: 'Submit' }).click();
      await textOf(dialog).toContain('Confirm Banana?');
      await dialog.getByRole('button', { name: 'Yes' }).click();
      await hidden(dialog);
      await visible(page.getByText('You picked Banana, and it is confirmed.'));
    });
  }

  it('reload while pending: the conversation and the dialog come back, Approve works', async () => {
    await open(page, '?app=image-studio');
    await say(page, 'Generate 4 images');
    await visible(dialogOf(page));
    await page.waitForURL(/session=/);
    await page.reload();
    const dialog = dialogOf(page);
    await visible(dialog);
    await textOf(dialog).toContain('Large request: 4 images');
    await textOf(page.locator('.message--user')).toContain('Generate 4 images');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await hidden(dialog);
    await countOf(page.getByRole('img', { name: /^Generated \d+ of/ })).toBe(4);
  });

  it('Escape closes without deciding; the banner reopens it', async () => {
    await open(page, '?app=image-studio');
    await say(page, 'Generate 3 images');
    const dialog = dialogOf(page);
    await visible(dialog);
    await page.keyboard.press('Escape');
    await hidden(dialog);
    const review = page.getByRole('button', { name: 'Review approval' });
    await visible(review);
    await shot(page, 'chat-pending-banner');
    await review.click();
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await countOf(page.getByRole('img', { name: /^Generated \d+ of/ })).toBe(3);
  });

  it('inbox: approve from a second page; the chat page follows', async () => {
    const user = `inbox-${Date.now()}`;
    await open(page, '?app=payments', user);
    await say(page, 'Send 50 EUR to Ana');
    await visible(page.getByRole('region', { name: 'Waiting for an approver' }));

    // An approver's inbox, in a browser of her own.
    const inbox = await approverPage('approvals');
    await inbox.locator('.identity__summary').click();
    expect(await inbox.getByRole('textbox', { name: 'Signed in as' }).inputValue()).toBe('maria');
    await inbox.locator('.identity__summary').click();
    const item = inbox.getByRole('listitem').filter({ hasText: 'Send 50 EUR to Ana?' });
    await visible(item);
    await textOf(item).toContain('Send 50 EUR to Ana?');
    await textOf(item).toMatch(/Requested .* ago/);
    await textOf(item).toMatch(/Expires in/);
    await shot(inbox, 'inbox');
    await item.getByRole('button', { name: /Review/ }).click();
    const dialog = dialogOf(inbox);
    await visible(dialog);
    await shot(inbox, 'inbox-dialog');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await hidden(dialog);
    await textOf(item).toContain('Approved');
    await textOf(item).toContain('completed');
    await shot(inbox, 'inbox-decided');

    // The chat tab learns about it by polling the session.
    await textOf(page.getByRole('region', { name: 'Payment receipt' })).toMatch(/TXN-/);
    await hidden(page.getByRole('region', { name: 'Waiting for an approver' }));
  });

  it('inbox: a long list comes a page at a time, the rest on "Show more"', async () => {
    const user = `pages-${Date.now()}`;
    for (let i = 0; i < 52; i++) {
      const started = await fetch(`${web.ui.baseUrl}/api/agent/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signedInAs(user) },
        body: JSON.stringify({ query: 'Generate 2 images', user_id: user, app: 'image-studio' }),
      });
      expect(started.status).toBe(200);
    }
    await open(page, 'approvals', user);
    const items = page.getByRole('list', { name: 'Pending approvals' }).getByRole('listitem');
    await countOf(items).toBe(50);
    await page.getByRole('button', { name: 'Show more' }).click();
    await countOf(items).toBe(52);
    await hidden(page.getByRole('button', { name: 'Show more' }));
  });

  it('already decided elsewhere: a stale dialog says so and shows the latest state', async () => {
    // This tab's reads of the session are held back, so it cannot learn of the other
    // decision before trying its own; they go through, late, once it has tried.
    // (Held from when its dialog shows: it opens once the server said who may decide.)
    const held: Route[] = [];
    let blind = false;
    await page.route('**/api/sessions/*/messages', (route) =>
      blind ? held.push(route) : route.continue(),
    );
    await open(page, '?app=image-studio');
    await say(page, 'Generate 2 images');
    await visible(dialogOf(page));
    blind = true;
    await page.waitForURL(/session=/);
    const other = await context.newPage();
    await other.goto(page.url());
    const otherDialog = dialogOf(other);
    await visible(otherDialog);
    await otherDialog.getByRole('button', { name: 'Approve' }).click();
    await countOf(other.getByRole('img', { name: /^Generated \d+ of/ })).toBe(2);
    await dialogOf(page).getByRole('button', { name: 'Approve' }).click({ timeout: 5_000 });
    blind = false;
    await Promise.all(held.splice(0).map((route) => route.continue()));
    await textOf(page.getByRole('alert')).toContain('Already decided elsewhere');
    await countOf(page.getByRole('img', { name: /^Generated \d+ of/ })).toBe(2);
    await hidden(dialogOf(page));
    await shot(page, 'chat-already-decided');
  });

  it('server unreachable: a human error with Retry that works once it is back', async () => {
    await open(page, '?app=image-studio');
    await page.route('**/api/chat', (route) => route.abort('connectionrefused'));
    await say(page, 'Generate 1 image');
    const alert = page.getByRole('alert');
    await textOf(alert).toContain('Can’t reach the Holdpoint server');
    await shot(page, 'chat-unreachable');
    await page.unroute('**/api/chat');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await countOf(page.getByRole('img', { name: /^Generated \d+ of/ })).toBe(1);
    await hidden(alert);
  });
});
