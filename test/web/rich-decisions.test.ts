import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Real OS processes (and a browser) start slowly on a loaded 2-core machine; they are bounded
// by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { ARTIFACTS, launchChromium } from './browser.js';
import { hidden, textOf, visible } from './wait.js';
import { startWebUi, type WebUi } from './web-ui.js';

// Decisions richer than yes or no, in a real browser against a real server: an approver
// edits a payment in the form the tool's schema generates, sees what changes, and the
// payment runs as edited; an edit that raises the amount waits for a second approver,
// who sees the model's call and the edit in force before approving it; and a lookup is
// answered in the tool's place, its answer becoming the tool's result.
const RICH_APP = fileURLToPath(new URL('../support/rich-decisions-app.ts', import.meta.url));

let ui: WebUi;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  ui = await startWebUi(['--app', RICH_APP]);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await ui?.close();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

/** A page of a browser of its own, signed in (dev) as `user` with `roles`, at `path`. */
async function personAt(path: string, user: string, roles = ''): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${ui.baseUrl}/`);
  await page.evaluate(
    ([name, typed]) => {
      localStorage.setItem('holdpoint.user', name ?? '');
      localStorage.setItem('holdpoint.roles', typed ?? '');
    },
    [user, roles],
  );
  await page.goto(`${ui.baseUrl}${path}`);
  return page;
}

async function say(page: Page, words: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(words);
  await box.press('Enter');
}

/** Ann asks for a payment in the chat; Maria, an approver, opens the same conversation. */
async function annAsksMariaOpens(amount: number): Promise<{ ann: Page; maria: Page }> {
  const ann = await personAt('/?app=payments', 'ann', 'approver');
  await say(ann, `Send $${amount} to Jiro`);
  await visible(ann.getByRole('region', { name: 'Waiting for an approver' }));
  await ann.waitForURL(/session=/);
  const maria = await personAt(ann.url().slice(ui.baseUrl.length), 'maria', 'approver');
  return { ann, maria };
}

const shot = (page: Page, name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png` });

describe('rich decisions in the web UI', () => {
  it('payments: an approver edits the amount in the form, sees the change, and the payment runs as edited', async () => {
    const { ann, maria } = await annAsksMariaOpens(200);
    const dialog = maria.getByRole('dialog');
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Edit' }).click();
    const amount = dialog.getByLabel('Amount');
    // The form is generated from the tool's schema and prefilled with the call.
    expect(await amount.inputValue()).toBe('200');
    expect(await dialog.getByLabel('Recipient').inputValue()).toBe('Jiro');
    expect(await amount.evaluate((el) => el === document.activeElement)).toBe(true);
    await textOf(dialog).toContain('Nothing changed yet');
    await textOf(dialog).toContain('Some changes need another approver');
    const approve = dialog.getByRole('button', { name: 'Approve with changes' });
    expect(await approve.isDisabled()).toBe(true);
    await amount.fill('150');
    await textOf(dialog.getByRole('list', { name: 'Your changes' })).toBe('Amount: 200 → 150');
    await shot(maria, 'dialog-edit-payment');
    await approve.click();
    await hidden(dialog);
    // Both the approver and the one who asked see it sent as edited.
    for (const page of [maria, ann]) {
      const receipt = page.getByRole('region', { name: 'Payment receipt' });
      await visible(receipt, 30_000);
      await textOf(receipt).toContain('150 USD');
      await textOf(receipt).toContain('Jiro');
    }
    await visible(ann.getByText(/Sent 150 USD to Jiro/));
    // The approver's card says the call ran as changed, and by whom.
    const card = maria.getByRole('article', { name: 'Tool process_payment' });
    await textOf(card.getByRole('list', { name: 'Decided by' })).toMatch(
      /^Approved with changes by maria/,
    );
    await textOf(card.getByRole('list', { name: 'Changes to the model’s call' })).toBe(
      'Amount: 200 → 150',
    );
  });

  it('payments: a raised amount waits for a second approver, who sees the model’s call and the edit before approving', async () => {
    const { ann, maria } = await annAsksMariaOpens(200);
    const dialog = maria.getByRole('dialog');
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Edit' }).click();
    await dialog.getByLabel('Amount').fill('300');
    await textOf(dialog.getByRole('list', { name: 'Your changes' })).toBe('Amount: 200 → 300');
    await dialog.getByRole('button', { name: 'Approve with changes' }).click();
    await hidden(dialog);
    await visible(
      maria.getByText('Your change is recorded. It needs another approver before the call runs.'),
    );

    // Bob, another approver, reviews it from his inbox: the call as edited, and by whom.
    const bob = await personAt('/approvals', 'bob', 'approver');
    const list = bob.getByRole('list', { name: 'Pending approvals' });
    await visible(list.getByRole('listitem'));
    await list
      .getByRole('button', { name: /Review/ })
      .first()
      .click();
    const his = bob.getByRole('dialog');
    await visible(his);
    await textOf(his).toContain('Changed by maria');
    await textOf(his.getByRole('list', { name: 'Changes to the model’s call' })).toBe(
      'Amount: 200 → 300',
    );
    await textOf(his.getByRole('region', { name: 'Details' })).toContain('300');
    await shot(bob, 'dialog-second-approver');
    await his.getByRole('button', { name: 'Approve', exact: true }).click();
    await hidden(his);
    const receipt = ann.getByRole('region', { name: 'Payment receipt' });
    await visible(receipt, 30_000);
    await textOf(receipt).toContain('300 USD');
  });

  it('payments: an edit the server refuses keeps the dialog open, its message beside the field; corrected, it runs', async () => {
    const { maria } = await annAsksMariaOpens(200);
    // The server's refusal as its stream sends it: an error chunk, nothing recorded.
    const refusal = [
      { type: 'start' },
      {
        type: 'error',
        errorText:
          'VALIDATION_FAILED: The edited arguments of process_payment are invalid: amount: Too big: expected number to be <=10000',
      },
    ];
    await maria.route('**/api/chat', (route) =>
      route.fulfill({
        status: 200,
        headers: {
          'content-type': 'text/event-stream',
          'x-vercel-ai-ui-message-stream': 'v1',
        },
        body: `${refusal.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`,
      }),
    );
    const dialog = maria.getByRole('dialog');
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Edit' }).click();
    const amount = dialog.getByLabel('Amount');
    await amount.fill('50000');
    await dialog.getByRole('button', { name: 'Approve with changes' }).click();
    const message = dialog.getByText(/amount: Too big/).first();
    await visible(message);
    expect(await amount.getAttribute('aria-describedby')).toContain(
      await message.getAttribute('id'),
    );
    expect(await amount.inputValue()).toBe('50000');
    await shot(maria, 'dialog-edit-refused');
    await maria.unroute('**/api/chat');
    await amount.fill('120');
    await dialog.getByRole('button', { name: 'Approve with changes' }).click();
    await hidden(dialog);
    const receipt = maria.getByRole('region', { name: 'Payment receipt' });
    await visible(receipt, 30_000);
    await textOf(receipt).toContain('120 USD');
  });

  for (const mode of ['sse', 'ws'] as const) {
    it(`lookup over ${mode}: "Respond instead" answers in the tool's place, and the tool does not run`, async () => {
      const page = await personAt(`/?app=rich-decisions${mode === 'ws' ? '&mode=ws' : ''}`, 'tess');
      await say(page, 'lookup weather');
      const dialog = page.getByRole('dialog');
      await visible(dialog);
      expect(await dialog.getByRole('button', { name: 'Edit' }).count()).toBe(0);
      await dialog.getByRole('button', { name: 'Respond instead' }).click();
      await textOf(dialog).toContain('Your answer becomes the tool’s result');
      // The tool's response schema ({answer: string}) is a form of its own.
      const answer = dialog.getByLabel('Answer');
      await answer.fill('Sunny, 21 °C');
      await shot(page, `dialog-respond-${mode}`);
      await dialog.getByRole('button', { name: 'Send response' }).click();
      await hidden(dialog);
      await visible(page.getByText('lookup: {"answer":"Sunny, 21 °C"}'), 30_000);
      expect(await page.getByText(/the tool looked up/).count()).toBe(0);
    });
  }
});
