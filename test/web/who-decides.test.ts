import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Real OS processes (and a browser) start slowly on a loaded 2-core machine; they are bounded
// by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { signedInAs } from '../support/json-client.js';
import { ARTIFACTS } from './browser.js';
import { countOf, hidden, textOf, visible } from './wait.js';
import { webUiInChromium } from './web-ui-in-chromium.js';

// Every screen knows who may decide (issue 21): the payments demo's requester is shown
// whom the payment waits for and may cancel it, never an Approve that cannot work; an
// approver in a browser of her own decides, and the requester's page follows.
const web = webUiInChromium();
const contexts: BrowserContext[] = [];

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

const DESKTOP = { width: 1200, height: 860 };

/** A page in a browser of its own, signed in (the dev "Signed in as") as `user` with `roles`, at `query`. */
async function personAt(
  query: string,
  user: string,
  roles = '',
  viewport = DESKTOP,
): Promise<Page> {
  const context = await web.browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${web.ui.baseUrl}/`);
  await page.evaluate(
    ([name, typed]) => {
      localStorage.setItem('holdpoint.user', name ?? '');
      localStorage.setItem('holdpoint.roles', typed ?? '');
    },
    [user, roles],
  );
  await page.goto(`${web.ui.baseUrl}/${query}`);
  return page;
}

async function say(page: Page, words: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(words);
  await box.press('Enter');
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: false });

const waitingPanel = (page: Page) => page.getByRole('region', { name: 'Waiting for an approver' });

/**
 * Polls until the page is no wider than its window (`document.scrollWidth <= innerWidth`);
 * while it is, the elements that stick out.
 */
const overflowOf = (page: Page) =>
  expect.poll(() =>
    page.evaluate(() => {
      const wide = [...document.querySelectorAll('*')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map((el) => `${el.tagName}.${el.className}`);
      return document.documentElement.scrollWidth > window.innerWidth ? wide.slice(0, 8) : [];
    }),
  );

describe('who may decide, in the web UI', () => {
  for (const mode of ['sse', 'ws'] as const) {
    it(`payments over ${mode}: the requester waits for an approver, who approves in her own browser`, async () => {
      const requester = `ann-${mode}-${Date.now()}`;
      const ann = await personAt(`?app=payments${mode === 'ws' ? '&mode=ws' : ''}`, requester);
      await say(ann, 'Send $200 to Jiro');
      const panel = waitingPanel(ann);
      await visible(panel);
      await textOf(panel).toContain('Waiting for an approver (role approver)');
      await textOf(panel).toContain('Asked: role approver');
      await textOf(panel).toContain('Send 200 USD to Jiro?');
      await textOf(panel).toContain('You asked for it, so someone else must approve it.');
      await textOf(panel).toMatch(/Expires in \d+:\d\d/);
      await textOf(ann.locator('.tool-card')).toContain('Waiting for an approver');
      expect(await ann.getByRole('dialog').count()).toBe(0);
      expect(await ann.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect(await ann.getByRole('button', { name: /Review/ }).count()).toBe(0);
      await shot(ann, `requester-waiting-${mode}`);

      // A reload does not bring an Approve back either.
      await ann.waitForURL(/session=/);
      if (mode === 'sse') {
        await ann.reload();
        await visible(waitingPanel(ann));
        expect(await ann.getByRole('dialog').count()).toBe(0);
      }

      // Maria, an approver, opens the conversation in her own browser and approves.
      const maria = await personAt(ann.url().slice(web.ui.baseUrl.length + 1), 'maria', 'approver');
      const dialog = maria.getByRole('dialog');
      await visible(dialog);
      await textOf(dialog).toContain('Send 200 USD to Jiro?');
      await dialog.getByRole('button', { name: 'Approve' }).click();
      await hidden(dialog);

      // The requester's page follows: the receipt, and who approved when.
      const receipt = ann.getByRole('region', { name: 'Payment receipt' });
      await visible(receipt);
      await textOf(receipt).toMatch(/TXN-/);
      await hidden(waitingPanel(ann));
      const decided = ann.getByRole('list', { name: 'Decided by' });
      await textOf(decided).toMatch(/Approved by maria · \d/);
      expect(await decided.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
      await shot(ann, `requester-approved-${mode}`);
    });
  }

  for (const mode of ['sse', 'ws'] as const) {
    it(`payments over ${mode}: the requester cancels the payment, and the session takes new messages`, async () => {
      const ann = await personAt(
        `?app=payments${mode === 'ws' ? '&mode=ws' : ''}`,
        `ann-cancel-${mode}-${Date.now()}`,
      );
      await say(ann, 'Send $200 to Jiro');
      const panel = waitingPanel(ann);
      await visible(panel);
      await panel.getByRole('button', { name: 'Cancel request' }).click();
      await hidden(panel);
      await visible(ann.getByText('This run was cancelled.'));
      await say(ann, 'Send $5 to Ann');
      await textOf(waitingPanel(ann)).toContain('Send 5 USD to Ann?');
      expect(await ann.getByRole('alert').count()).toBe(0);
    });
  }

  it('picker: the inputs are answered with their own labels, Submit/Cancel and Yes/No', async () => {
    const page = await personAt('?app=picker', 'pat');
    await say(page, 'Pick a fruit');
    const dialog = page.getByRole('dialog');
    await visible(dialog);
    await textOf(dialog).toContain('Input needed');
    await textOf(dialog).toContain('Pick a fruit');
    expect(await dialog.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await dialog.getByRole('button', { name: 'Reject' }).count()).toBe(0);
    expect(await dialog.getByRole('button', { name: 'Cancel' }).isEnabled()).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Submit' }).isDisabled()).toBe(true);
    await dialog.getByRole('radio', { name: 'Cherry' }).check();
    await shot(page, 'dialog-picker-labels');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await textOf(dialog).toContain('Confirm Cherry?');
    expect(await dialog.getByRole('button', { name: 'Submit' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Yes' }).click();
    await hidden(dialog);
    await visible(page.getByText('You picked Cherry, and it is confirmed.'));
    await textOf(page.getByRole('list', { name: 'Decided by' })).toMatch(/Answered by pat/);
  });

  it('the inbox says it lists the approvals you can decide', async () => {
    const ann = await personAt('?app=payments', `ann-inbox-${Date.now()}`);
    await say(ann, 'Send 70 EUR to Ines');
    await visible(waitingPanel(ann));
    const maria = await personAt('approvals', 'maria', 'approver');
    await visible(maria.getByRole('heading', { name: 'Approvals you can decide' }));
    await visible(maria.getByRole('listitem').filter({ hasText: 'Send 70 EUR to Ines?' }));
    const annInbox = await personAt('approvals', 'ann-nobody', '');
    await visible(annInbox.getByRole('heading', { name: 'Approvals you can decide' }));
    await visible(annInbox.getByText('Nothing waits for you'));
  });

  it('390 px wide: the header, the chat and the inbox fit, with no horizontal overflow', async () => {
    const phone = { width: 390, height: 844 };
    // Someone else's payment, so the phone's inbox lists one.
    const asked = await fetch(`${web.ui.baseUrl}/api/agent/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedInAs('bo-phone') },
      body: JSON.stringify({ app: 'payments', query: 'Send 30 EUR to Ana' }),
    });
    expect(asked.status).toBe(200);
    const page = await personAt('?app=payments', 'ann-phone', 'approver', phone);
    await visible(page.getByRole('textbox', { name: 'Message' }));
    // The development sign-in sits in the header, its fields in a panel under it.
    await page.locator('.identity__summary').click();
    await visible(page.getByRole('textbox', { name: 'Signed in as' }));
    await overflowOf(page).toEqual([]);
    await shot(page, 'mobile-390-dev-sign-in');
    await page.locator('.identity__summary').click();
    await visible(page.getByRole('link', { name: 'Approvals' }));
    await overflowOf(page).toEqual([]);
    await shot(page, 'mobile-390-chat');
    await say(page, 'Send $200 to Jiro');
    await visible(waitingPanel(page));
    await overflowOf(page).toEqual([]);
    await shot(page, 'mobile-390-waiting');
    await page.getByRole('link', { name: 'Approvals' }).click();
    await visible(page.getByRole('heading', { name: 'Approvals you can decide' }));
    await visible(page.getByRole('listitem').filter({ hasText: 'Send 30 EUR to Ana?' }));
    await overflowOf(page).toEqual([]);
    await shot(page, 'mobile-390-inbox');
    await countOf(page.getByRole('button', { name: 'Refresh' })).toBe(1);
  });
});
