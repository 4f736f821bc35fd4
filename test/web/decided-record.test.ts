import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Real OS processes (and a browser) start slowly on a loaded 2-core machine; they are bounded
// by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { JsonClient } from '../support/json-client.js';
import { ARTIFACTS } from './browser.js';
import { textOf, visible } from './wait.js';
import { webUiInChromium } from './web-ui-in-chromium.js';

// Issue 32, points 3 and 4, in the web UI: a reloaded conversation said "Rejected. The tool
// did not run." without the reason the approver gave, and after maria raised a payment
// 200 → 250 the requester's page said it waited for "an approver" though it needs two.
const web = webUiInChromium();
const contexts: BrowserContext[] = [];

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

const REASON = 'the invoice was paid already';

/** A page in a browser of its own, signed in (the dev "Signed in as") as `user` with `roles`, at `path`. */
async function personAt(path: string, user: string, roles = ''): Promise<Page> {
  const context = await web.browser.newContext({ viewport: { width: 1200, height: 860 } });
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
  await page.goto(`${web.ui.baseUrl}/${path}`);
  return page;
}

/** Ann's payment request, waiting for an approver in her page. */
async function annAsks(requester: string): Promise<Page> {
  const ann = await personAt('?app=payments', requester);
  const box = ann.getByRole('textbox', { name: 'Message' });
  await box.fill('Send $200 to Jiro');
  await box.press('Enter');
  await visible(waitingPanel(ann));
  await ann.waitForURL(/session=/);
  return ann;
}

const waitingPanel = (page: Page) => page.getByRole('region', { name: 'Waiting for an approver' });
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: false });

describe('the record of a decision, in the web UI', () => {
  it('a rejection’s reason: in the inbox row it was decided from, and in the tool card after a reload', async () => {
    const requester = `ann-reason-${Date.now()}`;
    const ann = await annAsks(requester);

    // Maria rejects it from her inbox, with a reason.
    const maria = await personAt('approvals', 'maria', 'approver');
    const row = maria.getByRole('listitem').filter({ hasText: requester });
    await visible(row);
    await row.getByRole('button', { name: /Review/ }).click();
    const dialog = maria.getByRole('dialog');
    await dialog.getByLabel(/Reason/).fill(REASON);
    await dialog.getByRole('button', { name: 'Reject' }).click();
    const outcome = row.getByRole('status');
    await textOf(outcome).toMatch(/^Rejected/);
    await textOf(outcome).toContain(REASON);
    await shot(maria, 'inbox-rejected-with-reason');

    // Ann's conversation, reloaded from the server's record.
    await ann.reload();
    const card = ann.locator('.tool-card');
    await visible(card);
    await textOf(card).toContain(`Rejected: “${REASON}”. The tool did not run.`);
    await shot(ann, 'reloaded-rejection-reason');
  });

  it('after maria raises 200 → 250, the requester’s page waits for 2 approvers, before and after a reload', async () => {
    const requester = `ann-raise-${Date.now()}`;
    const ann = await annAsks(requester);
    await textOf(waitingPanel(ann)).toContain('Waiting for an approver (role approver)');

    const maria = new JsonClient(web.ui.baseUrl, { user: 'maria', roles: ['approver'] });
    const inbox = await maria.get('/api/approvals');
    const approval = inbox.body.approvals.find((a: { user_id: string }) => a.user_id === requester);
    const raised = await maria.post(`/api/approvals/${approval.approval_id}`, {
      approved: true,
      args_hash: approval.args_hash,
      edited_args: { amount: 250, recipient: 'Jiro', currency: 'USD' },
    });
    expect(raised.body.status).toBe('pending_approval');

    for (const when of ['followed', 'reloaded']) {
      if (when === 'reloaded') await ann.reload();
      const panel = waitingPanel(ann);
      await textOf(panel).toContain('Waiting for 2 approvers (role approver)');
      await textOf(panel).toContain('Asked: role approver · 1 of 2 approved');
      await textOf(panel).toContain('Changed by maria');
    }
    await shot(ann, 'raised-waits-for-two');
  });
});
