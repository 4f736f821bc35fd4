import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, defineApp, type Holdpoint } from 'holdpoint';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApprovalEvent } from '../src/core/approval-event.js';
import { type DeliveryContext, DeliveryFailure } from '../src/runtime/notify/channel.js';
import { decisionLinks } from '../src/runtime/notify/decision-links.js';
import type { DeliveryRecord } from '../src/store/outbox.js';
import { emailChannel } from '../src/transports/notify/email-channel.js';
import approvalTools from './support/approval-tools-app.js';
import { JsonClient } from './support/json-client.js';
import { SmtpInbox } from './support/smtp-inbox.js';
import { launchChromium } from './web/browser.js';

// A browser starts slowly on a loaded 2-core machine: bounded by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

// The email channel against a real SMTP server (smtp-server): a person gets text and HTML
// with their own decision link, followed in Chromium to the confirmation page, a
// decision, and a second use refused; a role's address gets the web UI's page; a missing
// address or a mailbox the server refuses gives up, a server that says "later" retries.
// The channel is driven here with deliveries built as the dispatcher builds them.

const SECRET = 'notify-email-test-secret-0123456789';
const mailApp = defineApp({
  name: 'mailed',
  label: 'Mailed payments',
  agent: approvalTools.agent,
  approvals: {
    always_confirm: {
      hint: (args) => `Move ${String(args.amount)} credits <now>?`,
      approvers: { users: ['alice'], roles: ['finance'] },
    },
  },
});

const inbox = new SmtpInbox();
let holdpoint: Holdpoint;
let server: Server;
let base: string;
let links: ReturnType<typeof decisionLinks>;
let channel: ReturnType<typeof emailChannel>;
let browser: Browser;

beforeAll(async () => {
  const smtpUrl = await inbox.listen();
  channel = emailChannel({ smtpUrl, from: 'Holdpoint <holdpoint@example.com>' });
  holdpoint = createHoldpoint({
    apps: [mailApp],
    sweepIntervalSeconds: false,
    notifications: { channels: [channel], links: { baseUrl: 'http://unused', secret: SECRET } },
  });
  server = createServer(holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  links = decisionLinks({ baseUrl: base, secret: SECRET });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
  await holdpoint.close();
  await inbox.close();
});

/** Starts a run as carol that pauses on one approval: its `requested` event. */
async function requested(amount: number): Promise<ApprovalEvent> {
  const { body } = await new JsonClient(base, { user: 'carol' }).post('/api/agent/start', {
    query: `always ${amount}`,
  });
  const [approval] = body.approvals;
  return {
    v: 1,
    id: `line-${approval.approval_id}`,
    type: 'requested',
    at: new Date().toISOString(),
    app: body.app,
    session_id: body.session_id,
    invocation_id: body.invocation_id,
    pause_id: body.pause_id,
    actor: 'agent',
    approval: {
      approval_id: approval.approval_id,
      kind: 'confirmation',
      tool_name: approval.tool_name,
      args: approval.args,
      args_hash: approval.args_hash,
      hint: approval.hint,
      created_at: approval.created_at,
      expires_at: approval.expires_at,
      approvers: {
        owner: false,
        roles: ['finance'],
        users: ['alice'],
        quorum: 1,
        requester_may_approve: false,
      },
      status: 'pending',
    },
  };
}

function deliveryOf(event: ApprovalEvent, recipient: string): DeliveryRecord {
  return {
    deliveryId: `dlv_${event.approval.approval_id.replace(/[^\w]/g, '').slice(0, 20)}${recipient.length}`,
    eventId: event.id,
    event,
    channel: 'email',
    recipient,
    status: 'pending',
    attempts: 1,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    version: 1,
  };
}

function contextFor(event: ApprovalEvent, audience: string, email?: string): DeliveryContext {
  return {
    recipient: { audience, ...(email ? { address: { email } } : {}) },
    decisionLink: (_approvalId, approver) => links.decisionLink(event, approver),
    approvalUrl: (approvalId) => links.approvalUrl(approvalId),
    earlier: async () => undefined,
    signal: new AbortController().signal,
  };
}

const send = (event: ApprovalEvent, audience: string, email?: string) =>
  channel.send(deliveryOf(event, audience), contextFor(event, audience, email));

describe('the email channel', () => {
  it('mails a person their decision link, which decides once in a browser', async () => {
    const event = await requested(42);
    const before = inbox.received.length;
    const sent = await send(event, 'user:alice', 'alice@example.com');
    const [{ to, mail }] = (await inbox.until(before + 1)).slice(before) as [
      (typeof inbox.received)[number],
    ];
    expect(to).toEqual(['alice@example.com']);
    expect(mail.subject).toBe('[Holdpoint] Approval needed: always_confirm (mailed)');
    expect(mail.messageId).toBe(`<${deliveryOf(event, 'user:alice').deliveryId}@holdpoint>`);
    expect(sent).toEqual({ ref: mail.messageId });
    const text = mail.text ?? '';
    expect(text).toContain('Question: Move 42 credits <now>?');
    expect(text).toContain('"amount": 42');
    const link = text.match(/Approve or reject: (\S+)/)?.[1] ?? '';
    expect(link).toMatch(new RegExp(`^${base}/decide/[\\w-]+\\.[\\w-]+$`));
    const html = String(mail.html);
    expect(html).toContain('Move 42 credits &lt;now&gt;?');
    expect(html).toContain(`<a href="${link}">Approve or reject</a>`);

    const page = await browser.newPage();
    try {
      const opened = await page.goto(link);
      expect(opened?.status()).toBe(200);
      await page.getByRole('heading', { name: 'Approve always_confirm?' }).waitFor();
      expect(await page.getByText('Move 42 credits <now>?').count()).toBe(1);
      // Opening decided nothing.
      const waiting = await new JsonClient(base).get(`/api/sessions/${event.session_id}`);
      expect(waiting.body.status).toBe('paused');

      await page.getByLabel('Reason (optional)').fill('Paid from the mail');
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('heading', { name: 'Approved' }).waitFor();
      const done = await new JsonClient(base).get(`/api/sessions/${event.session_id}`);
      expect(done.body).toMatchObject({ status: 'idle', run: { status: 'completed' } });
      const { body: audit } = await new JsonClient(base).get(
        `/api/audit?session_id=${event.session_id}`,
      );
      expect(audit.entries.filter((e: { action: string }) => e.action === 'decided')).toEqual([
        expect.objectContaining({ actor: 'alice', channel: 'link', reason: 'Paid from the mail' }),
      ]);

      const again = await page.goto(link);
      expect(again?.status()).toBe(410);
      await page.getByRole('heading', { name: 'This link was already used' }).waitFor();
    } finally {
      await page.close();
    }
  });

  it("gives a role's shared address the web UI's page, never a personal link", async () => {
    const event = await requested(43);
    const before = inbox.received.length;
    await send(event, 'role:finance', 'finance@example.com');
    const [{ to, mail }] = (await inbox.until(before + 1)).slice(before) as [
      (typeof inbox.received)[number],
    ];
    expect(to).toEqual(['finance@example.com']);
    expect(mail.text).toContain(`Decide in Holdpoint: ${base}/approvals`);
    expect(mail.text).not.toContain('/decide/');
    expect(String(mail.html)).not.toContain('/decide/');
  });

  it('tells of a decision without a link to decide', async () => {
    const event = await requested(44);
    const decided: ApprovalEvent = {
      ...event,
      type: 'decided',
      actor: 'alice',
      approval: { ...event.approval, status: 'approved' },
      decision: { approved: true, decided_by: 'alice', channel: 'link', reason: 'Fine' },
    };
    const before = inbox.received.length;
    await send(decided, 'user:alice', 'alice@example.com');
    const [{ mail }] = (await inbox.until(before + 1)).slice(before) as [
      (typeof inbox.received)[number],
    ];
    expect(mail.subject).toBe('[Holdpoint] Approved: always_confirm (mailed)');
    expect(mail.text).toContain('alice approved it through link');
    expect(mail.text).toContain('Reason: Fine');
    expect(mail.text).not.toContain('/decide/');
  });

  it('gives up on a missing address or a refused mailbox, and retries a server that says later', async () => {
    const event = await requested(45);
    const nowhere = await send(event, 'user:nobody').catch((e: unknown) => e);
    expect(nowhere).toBeInstanceOf(DeliveryFailure);
    expect(nowhere).toMatchObject({
      retryable: false,
      message: 'No email address for user:nobody.',
    });
    inbox.refuse.set('gone@example.com', 550);
    inbox.refuse.set('busy@example.com', 451);
    const gone = await send(event, 'user:gone', 'gone@example.com').catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(DeliveryFailure);
    expect((gone as DeliveryFailure).retryable).toBe(false);
    const busy = await send(event, 'user:busy', 'busy@example.com').catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(DeliveryFailure);
    expect((busy as DeliveryFailure).retryable).toBe(true);
  });
});
