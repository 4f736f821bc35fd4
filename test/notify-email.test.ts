import { createServer, type Server } from 'node:http';
import { createHoldpoint, defineApp, type Holdpoint, redisStore } from 'holdpoint';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApprovalEvent } from '../src/core/approval-event.js';
import { type DeliveryContext, DeliveryFailure } from '../src/runtime/notify/channel.js';
import { decisionLinks } from '../src/runtime/notify/decision-links.js';
import type { DeliveryRecord } from '../src/store/outbox.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import type { Delivery } from '../src/transports/http/wire/deliveries.js';
import { emailChannel } from '../src/transports/notify/email-channel.js';
import approvalTools from './support/approval-tools-app.js';
import { freePort } from './support/free-port.js';
import { JsonClient } from './support/json-client.js';
import { type ReceivedMail, SmtpInbox } from './support/smtp-inbox.js';
import { launchChromium } from './web/browser.js';

// A browser starts slowly on a loaded 2-core machine: bounded by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

// Email against a real SMTP server (smtp-server), on Redis: a pause is mailed by the
// outbox's dispatcher to its approvers — a person with their own decision link, a role's
// shared address with the web UI's page — and the link, followed from the received mail
// in Chromium, shows the approval, decides once, and is refused when used again; the
// decision is mailed too. The channel's own rules (subjects, a missing address, refused
// mailboxes) are checked by sending deliveries built as the dispatcher builds them.

const SECRET = 'notify-email-test-secret-0123456789';
const FROM = 'Holdpoint <holdpoint@example.com>';
const mailApp = defineApp({
  name: 'mailed',
  label: 'Mailed payments',
  agent: approvalTools.agent,
  approvals: {
    always_confirm: {
      hint: (args) => `Move ${String(args.amount)} credits <now>?`,
      approvers: { users: ['alice'], roles: ['finance'] },
    },
    // Decided by a role only; carol is told of it, and may not decide it.
    confirm_above_100: {
      hint: (args) => `Move ${String(args.amount)} credits, finance?`,
      approvers: { roles: ['finance'] },
      notify: { to: ['user:carol'] },
    },
  },
});

const scratch = new RedisScratch();
/** Where the dispatcher's email channel sends. */
const mailbox = new SmtpInbox();
/** Where the channel driven directly sends. */
const inbox = new SmtpInbox();
let holdpoint: Holdpoint;
let server: Server;
let base: string;
let links: ReturnType<typeof decisionLinks>;
let channel: ReturnType<typeof emailChannel>;
let browser: Browser;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  holdpoint = createHoldpoint({
    apps: [mailApp],
    store: redisStore({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix }),
    sweepIntervalSeconds: false,
    notifications: {
      channels: [emailChannel({ smtpUrl: await mailbox.listen(), from: FROM })],
      directory: {
        users: {
          alice: { email: 'alice@example.com' },
          bob: { email: 'bob@example.com' },
          carol: { email: 'carol@example.com' },
        },
        roles: { finance: { email: 'finance@example.com' } },
        members: { finance: ['bob'] },
      },
      links: { baseUrl: base, secret: SECRET },
    },
  });
  server = createServer(holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  links = decisionLinks({ baseUrl: base, secret: SECRET });
  channel = emailChannel({ smtpUrl: await inbox.listen(), from: FROM });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
  await holdpoint.close();
  await Promise.all([mailbox.close(), inbox.close()]);
  await scratch.cleanup();
});

/** A mail to `to` whose text says `says`. */
const mailTo =
  (to: string, says: string) =>
  ({ to: recipients, mail }: ReceivedMail) =>
    recipients.includes(to) && (mail.text ?? '').includes(says);

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

/** The session's deliveries, once none of them waits for an attempt any more. */
async function settledDeliveries(sessionId: string): Promise<Delivery[]> {
  let ours: Delivery[] = [];
  await expect
    .poll(
      async () => {
        const { body } = await new JsonClient(base).get('/api/deliveries?limit=100');
        ours = (body.deliveries as Delivery[]).filter((d) => d.event.session_id === sessionId);
        return ours.length > 0 && ours.every((d) => d.status === 'sent');
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return ours;
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
    recipientMayDecide: true,
    decisionLink: (_approvalId, approver) => links.decisionLink(event, approver),
    approvalUrl: (approvalId) => links.approvalUrl(approvalId),
    earlier: async () => undefined,
    signal: new AbortController().signal,
  };
}

const send = (event: ApprovalEvent, audience: string, email?: string) =>
  channel.send(deliveryOf(event, audience), contextFor(event, audience, email));

describe('the email channel', () => {
  it('mails a pause to its approvers; the link in the mail decides once in a browser', async () => {
    const started = await new JsonClient(base, { user: 'carol' }).post('/api/agent/start', {
      query: 'always 42',
    });
    expect(started.body.status).toBe('pending_approval');
    const sessionId: string = started.body.session_id;
    const asked = 'Question: Move 42 credits <now>?';

    const personal = await mailbox.find(mailTo('alice@example.com', asked));
    expect(personal.mail.subject).toBe('[Holdpoint] Approval needed: always_confirm (mailed)');
    expect(personal.mail.messageId).toMatch(/^<dlv_[0-9a-f]{32}@holdpoint>$/);
    const text = personal.mail.text ?? '';
    expect(text).toContain('"amount": 42');
    const link = text.match(/Approve or reject: (\S+)/)?.[1] ?? '';
    expect(link.startsWith(`${base}/decide/`)).toBe(true);
    const html = String(personal.mail.html);
    expect(html).toContain('Move 42 credits &lt;now&gt;?');
    expect(html).toContain(`<a href="${link}">Approve or reject</a>`);
    const shared = await mailbox.find(mailTo('finance@example.com', asked));
    expect(shared.mail.text).toContain(`Decide in Holdpoint: ${base}/approvals`);
    expect(shared.mail.text).not.toContain('/decide/');

    const page = await browser.newPage();
    try {
      const opened = await page.goto(link);
      expect(opened?.status()).toBe(200);
      await page.getByRole('heading', { name: 'Approve always_confirm?' }).waitFor();
      expect(await page.getByText('Move 42 credits <now>?').count()).toBe(1);
      // Opening decided nothing.
      const waiting = await new JsonClient(base).get(`/api/sessions/${sessionId}`);
      expect(waiting.body.status).toBe('paused');

      await page.getByLabel('Reason (optional)').fill('Paid from the mail');
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('heading', { name: 'Approved' }).waitFor();
      const done = await new JsonClient(base).get(`/api/sessions/${sessionId}`);
      expect(done.body).toMatchObject({ status: 'idle', run: { status: 'completed' } });
      const { body: audit } = await new JsonClient(base).get(`/api/audit?session_id=${sessionId}`);
      expect(audit.entries.filter((e: { action: string }) => e.action === 'decided')).toEqual([
        expect.objectContaining({ actor: 'alice', channel: 'link', reason: 'Paid from the mail' }),
      ]);

      const again = await page.goto(link);
      expect(again?.status()).toBe(410);
      await page.getByRole('heading', { name: 'This link was already used' }).waitFor();
    } finally {
      await page.close();
    }
    const told = await mailbox.find(
      mailTo('finance@example.com', 'alice approved it through link'),
    );
    expect(told.mail.subject).toBe('[Holdpoint] Approved: always_confirm (mailed)');
    expect(told.mail.text).toContain('Reason: Paid from the mail');
  });

  it("gives a role's member a link of their own, which decides as them with the role", async () => {
    const started = await new JsonClient(base, { user: 'dan' }).post('/api/agent/start', {
      query: 'predicate 501',
    });
    expect(started.body.status).toBe('pending_approval');
    const sessionId: string = started.body.session_id;
    const sent = await settledDeliveries(sessionId);
    expect(sent.map((d) => d.recipient).sort()).toEqual(['role:finance', 'user:bob', 'user:carol']);

    const shared = await mailbox.find(mailTo('finance@example.com', 'Move 501 credits'));
    expect(shared.mail.text).toContain(`Decide in Holdpoint: ${base}/approvals`);
    const personal = await mailbox.find(mailTo('bob@example.com', 'Move 501 credits'));
    expect(personal.mail.subject).toBe('[Holdpoint] Approval needed: confirm_above_100 (mailed)');
    expect(personal.mail.text).toContain('An agent waits for your approval.');
    const link = personal.mail.text?.match(/Approve or reject: (\S+)/)?.[1] ?? '';
    expect(link.startsWith(`${base}/decide/`)).toBe(true);

    const decided = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: 'decision=approve',
    });
    expect(decided.status).toBe(200);
    expect(await decided.text()).toContain('Your decision is recorded, bob.');
    const { body: audit } = await new JsonClient(base).get(`/api/audit?session_id=${sessionId}`);
    expect(audit.entries.filter((e: { action: string }) => e.action === 'decided')).toEqual([
      expect.objectContaining({ actor: 'bob', approved: true, channel: 'link' }),
    ]);
  });

  it('tells someone notified who may not decide (notify.to: user:carol) without a way to decide', async () => {
    const started = await new JsonClient(base, { user: 'dan' }).post('/api/agent/start', {
      query: 'predicate 502',
    });
    expect(started.body.status).toBe('pending_approval');
    const told = await mailbox.find(mailTo('carol@example.com', 'Move 502 credits'));
    expect(told.mail.subject).toBe('[Holdpoint] Waiting for approval: confirm_above_100 (mailed)');
    const text = told.mail.text ?? '';
    expect(text).toContain('For your information: an agent waits for approval.');
    expect(text).not.toContain('your approval');
    expect(text).not.toContain('Approve or reject');
    expect(text).not.toContain('/decide/');
    expect(text).toContain(`Open Holdpoint: ${base}/approvals`);
    expect(String(told.mail.html)).not.toContain('/decide/');
  });

  it("gives a role's shared address the web UI's page, never a personal link", async () => {
    const event = await requested(43);
    await send(event, 'role:finance', 'finance@example.com');
    const { to, mail } = await inbox.find(mailTo('finance@example.com', 'Move 43 credits'));
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
    await send(decided, 'user:alice', 'alice@example.com');
    const { mail } = await inbox.find(mailTo('alice@example.com', 'Move 44 credits'));
    expect(mail.subject).toBe('[Holdpoint] Approved: always_confirm (mailed)');
    expect(mail.text).toContain('alice approved it through link');
    expect(mail.text).toContain('Reason: Fine');
    expect(mail.text).not.toContain('/decide/');
  });

  it('tells of a vote short of the quorum as still waiting, with a link to decide', async () => {
    const event = await requested(46);
    const voted: ApprovalEvent = {
      ...event,
      type: 'decided',
      actor: 'dave',
      approval: { ...event.approval, approvers: { ...event.approval.approvers, quorum: 2 } },
      decision: { approved: true, decided_by: 'dave' },
    };
    await send(voted, 'user:alice', 'alice@example.com');
    const { mail } = await inbox.find(mailTo('alice@example.com', 'Move 46 credits'));
    expect(mail.subject).toBe(
      '[Holdpoint] Vote recorded, approval still needed: always_confirm (mailed)',
    );
    expect(mail.text).toContain('dave approved it at');
    expect(mail.text).toContain('It waits for more approvals.');
    expect(mail.text).toMatch(/Approve or reject: \S+\/decide\//);
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
