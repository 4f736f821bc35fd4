import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, defineApp, type Holdpoint, memoryStore, redisStore } from 'holdpoint';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import {
  type ApprovalEvent,
  type ApprovalEventType,
  approvalEvent,
} from '../src/core/approval-event.js';
import { hashArgs } from '../src/core/hash.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { ApprovalRequest } from '../src/core/types.js';
import { buildHoldpoint } from '../src/library/create-holdpoint.js';
import { nodeHandler } from '../src/library/node-handler.js';
import { holdpointFromConfig } from '../src/main/holdpoint-from-config.js';
import type { DeliveryContext, RecipientAddress } from '../src/runtime/notify/channel.js';
import { DeliveryFailure } from '../src/runtime/notify/channel.js';
import type { PendingOutcome, RunOutcome } from '../src/runtime/run-outcome.js';
import { MemoryStore } from '../src/store/memory/memory-store.js';
import type { DeliveryRecord } from '../src/store/outbox.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { slackInteractivityRoutes } from '../src/transports/http/slack-interactivity.js';
import { type SlackChannel, slackChannel } from '../src/transports/notify/slack-channel.js';
import { rejectReasonView } from '../src/transports/notify/slack-message.js';
import { slackPrincipalOf } from '../src/transports/notify/slack-users.js';
import approvalTools, { effectRuns } from './support/approval-tools-app.js';
import { FakeSlack } from './support/fake-slack.js';
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { ann } from './support/principals.js';
import { runtimeOn } from './support/runtime-on.js';
import { slackSignedHeaders } from './support/slack-signed.js';

// Slack end to end against a stand-in of its Web API (bearer token checked, calls
// recorded): the request message with its buttons, thread replies, the rewrite once
// decided, Slack's errors as retryable or not; and button presses at
// /slack/interactivity, signed as Slack signs them, deciding through the same policy
// checks as every decision.

const TOKEN = 'xoxb-test-1234';
const SIGNING_SECRET = 'slack-signing-secret-for-tests';

/** `always_confirm` waits for alice or someone in finance; ann asks. */
const slackApp = defineApp({
  name: 'slacked',
  agent: approvalTools.agent,
  approvals: {
    always_confirm: {
      hint: (args) => `Move ${String(args.amount)} credits?`,
      approvers: { users: ['alice'], roles: ['finance'] },
    },
  },
});

const clock = new ManualClock();
const fake = new FakeSlack(TOKEN);
let holdpoint: Holdpoint;
let channel: SlackChannel;
let server: Server;
let base: string;
let built: ReturnType<typeof buildHoldpoint>;

beforeAll(async () => {
  await fake.start();
  channel = slackChannel({
    token: TOKEN,
    signingSecret: SIGNING_SECRET,
    apiUrl: fake.apiUrl,
    users: { UALICE: 'alice', UBOB: { id: 'bob', roles: ['finance'] }, UMALLORY: 'mallory' },
    clock,
  });
  built = buildHoldpoint({ apps: [slackApp], sweepIntervalSeconds: false, clock });
  holdpoint = built.holdpoint;
  const routes = slackInteractivityRoutes({
    runtime: built.runtime,
    logger: built.logger,
    signingSecret: channel.signingSecret,
    clock,
    principalOf: (id) => slackPrincipalOf(id, channel.users),
  });
  server = createServer(nodeHandler(routes.fetch));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await holdpoint.close();
  await fake.stop();
});
beforeEach(() => {
  fake.calls.length = 0;
  fake.responses.length = 0;
});

/** Ann asks to move `amount`: the run pauses on one approval. */
async function paused(amount: number): Promise<PendingOutcome> {
  const outcome = await holdpoint.start({ userId: 'ann', query: `always ${amount}` });
  expect(outcome.status).toBe('pending_approval');
  return outcome as PendingOutcome;
}

/** The event a delivery carries, as the planner makes it from an approval. */
function eventOf(
  type: ApprovalEventType,
  outcome: PendingOutcome,
  extra: Partial<ApprovalEvent> = {},
): ApprovalEvent {
  const approval = outcome.approvals[0] as ApprovalRequest;
  const approvers = approval.approvers;
  return approvalEvent.parse({
    v: 1,
    id: `line-${type}-${approval.approvalId}`,
    type,
    at: new Date(clock.now()).toISOString(),
    app: outcome.app,
    session_id: outcome.sessionId,
    invocation_id: outcome.invocationId,
    pause_id: outcome.pauseId,
    actor: type === 'requested' ? 'ann' : 'system',
    approval: {
      approval_id: approval.approvalId,
      kind: approval.kind,
      tool_name: approval.toolName,
      args: approval.args,
      args_hash: hashArgs(approval.args),
      hint: approval.hint,
      created_at: new Date(approval.createdAt).toISOString(),
      expires_at: new Date(approval.expiresAt).toISOString(),
      approvers: {
        owner: approvers?.owner ?? false,
        roles: approvers?.roles ?? [],
        users: approvers?.users ?? [],
        quorum: approvers?.quorum ?? 1,
        requester_may_approve: approvers?.requesterMayApprove ?? false,
      },
      status: 'pending',
    },
    ...extra,
  });
}

function deliveryOf(event: ApprovalEvent, recipient = 'user:alice', ref?: string): DeliveryRecord {
  return {
    deliveryId: `dlv_${event.type}_${recipient}`,
    eventId: event.id,
    event,
    channel: 'slack',
    recipient,
    status: 'sent',
    attempts: 1,
    ...(ref ? { ref } : {}),
    createdAt: clock.now(),
    updatedAt: clock.now(),
    version: 1,
  };
}

/** A delivery context for `audience` at `address`; `earlier` holds what was sent before. */
function contextFor(
  audience: string,
  address: RecipientAddress | undefined,
  earlier: Partial<Record<ApprovalEventType, DeliveryRecord>> = {},
): DeliveryContext {
  return {
    recipient: { audience, ...(address ? { address } : {}) },
    recipientMayDecide: true,
    decisionLink: () => undefined,
    approvalUrl: (id) => `https://hp.example.com/approvals/${id}`,
    earlier: async (type) => earlier[type],
    signal: new AbortController().signal,
  };
}

/** Sends the request to alice and returns the delivery as stored (with its ref). */
async function requestToAlice(outcome: PendingOutcome): Promise<DeliveryRecord> {
  const event = eventOf('requested', outcome);
  const sent = await channel.send(deliveryOf(event), contextFor('user:alice', { slack: 'UALICE' }));
  expect(sent?.ref).toMatch(/^DALICE:\d+\.\d+$/);
  return deliveryOf(event, 'user:alice', sent?.ref);
}

type Block = Record<string, unknown> & { type: string };
const textOf = (blocks: Block[]) => JSON.stringify(blocks);
const buttonsOf = (blocks: Block[]) =>
  (blocks.find((b) => b.type === 'actions')?.elements as Array<Record<string, unknown>>) ?? [];

/** A button press as Slack posts it (signed, see signedPost). */
async function press(
  options: {
    user: string;
    action: 'holdpoint_approve' | 'holdpoint_reject';
    value: string;
    timestamp?: number;
    secret?: string;
  },
  responseId = 'r1',
  handler?: (request: Request) => Response | Promise<Response>,
): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
  const payload = {
    type: 'block_actions',
    user: { id: options.user, username: options.user.toLowerCase(), team_id: 'T1' },
    api_app_id: 'A1',
    container: { type: 'message', message_ts: '1764000000.000001', channel_id: 'DALICE' },
    trigger_id: '1.2.3',
    team: { id: 'T1', domain: 'example' },
    response_url: fake.responseUrl(responseId),
    actions: [
      {
        type: 'button',
        block_id: 'holdpoint_decision',
        action_id: options.action,
        value: options.value,
        action_ts: '1764000001.000000',
      },
    ],
  };
  return signedPost(payload, handler, options);
}

/** An interaction payload as Slack posts it: form-encoded `payload=`, signed with the secret. */
async function signedPost(
  payload: Record<string, unknown>,
  handler?: (request: Request) => Response | Promise<Response>,
  options: { timestamp?: number; secret?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(options.timestamp ?? Math.floor(clock.now() / 1000));
  const request = new Request(`${base}/slack/interactivity`, {
    method: 'POST',
    headers: slackSignedHeaders(body, options.secret ?? SIGNING_SECRET, timestamp),
    body,
  });
  const response = await (handler ? handler(request) : fetch(request));
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The Reject modal submitted as Slack posts it, with `reason` typed (or left empty). */
function submitModal(
  view: Record<string, unknown>,
  user: string,
  reason: string | null,
  handler: (request: Request) => Response | Promise<Response>,
) {
  return signedPost(
    {
      type: 'view_submission',
      user: { id: user, team_id: 'T1' },
      team: { id: 'T1' },
      view: {
        ...view,
        id: 'V1',
        state: {
          values: { holdpoint_reason: { reason: { type: 'plain_text_input', value: reason } } },
        },
      },
    },
    handler,
  );
}

async function decisionsOf(sessionId: string) {
  const { entries } = await holdpoint.audit({ sessionId, limit: 200 });
  return entries.filter((e) => e.action === 'decided');
}

/** Watches `sessionId` (from now on, on any instance): `done` is its run's next outcome. */
async function runEnd(
  instance: Holdpoint,
  sessionId: string,
): Promise<{ done: Promise<RunOutcome> }> {
  let resolve!: (outcome: RunOutcome) => void;
  const done = new Promise<RunOutcome>((settle) => {
    resolve = settle;
  });
  await instance.watch(sessionId, (event) => {
    if (event.type === 'outcome') resolve(event.outcome);
  });
  return { done };
}

describe('the Slack channel', () => {
  it('asks with the tool, its arguments, the hint, the time left and both buttons', async () => {
    const outcome = await paused(42);
    await requestToAlice(outcome);
    const [call] = fake.callsOf('chat.postMessage');
    expect(call?.answer).toBe('ok');
    expect(call?.args.channel).toBe('UALICE');
    expect(call?.args.text).toBe('Approval needed: always_confirm (slacked)');
    const blocks = call?.args.blocks as Block[];
    const text = textOf(blocks);
    expect(text).toContain('always_confirm');
    expect(text).toContain('Move 42 credits?');
    expect(text).toContain('\\"amount\\": 42');
    expect(text).toContain('*Time left*\\n1 h 0 min');
    const approval = outcome.approvals[0] as ApprovalRequest;
    const value = `${approval.approvalId}|${hashArgs(approval.args)}`;
    expect(buttonsOf(blocks).map((b) => [b.action_id, b.value])).toEqual([
      ['holdpoint_approve', value],
      ['holdpoint_reject', value],
    ]);
  });

  it('tells someone who may not decide (notify.to: user:carol) without buttons, saying so', async () => {
    const outcome = await paused(43);
    const told = { ...contextFor('user:carol', { slack: 'UCAROL' }), recipientMayDecide: false };
    await channel.send(deliveryOf(eventOf('requested', outcome), 'user:carol'), told);
    const blocks = fake.callsOf('chat.postMessage')[0]?.args.blocks as Block[];
    expect(textOf(blocks)).toContain('Move 43 credits?');
    expect(buttonsOf(blocks)).toEqual([]);
    expect(textOf(blocks)).toContain('For your information: others decide this approval.');
  });

  it('keeps arguments in one code block, cut safely when long', async () => {
    const outcome = await paused(7);
    const event = eventOf('requested', outcome, {});
    event.approval.args = { note: `${'```'}<b>&${'😀'.repeat(3000)}` };
    await channel.send(deliveryOf(event), contextFor('user:alice', { slack: 'UALICE' }));
    const blocks = fake.callsOf('chat.postMessage')[0]?.args.blocks as Block[];
    const args = blocks
      .map((b) => (b.text as { text?: string } | undefined)?.text ?? '')
      .find((t) => t.startsWith('*Arguments*')) as string;
    expect(args.length).toBeLessThanOrEqual(3000);
    const code = args.slice('*Arguments*\n'.length);
    expect(code.startsWith('```') && code.endsWith('```')).toBe(true);
    expect(code.slice(3, -3)).not.toContain('```');
    expect(code).toContain('&lt;b&gt;&amp;');
    expect(code).toContain('…');
    expect(code).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('threads reminders under the request, and gives someone newly asked the whole request', async () => {
    const outcome = await paused(5);
    const requested = await requestToAlice(outcome);
    const [dm, ts] = (requested.ref as string).split(':');
    const reminded = eventOf('reminded', outcome, { reminder: { count: 1 } });
    const sent = await channel.send(
      deliveryOf(reminded),
      contextFor('user:alice', { slack: 'UALICE' }, { requested }),
    );
    expect(sent?.ref).toBeUndefined();
    const reply = fake.callsOf('chat.postMessage')[1];
    expect(reply?.args).toMatchObject({ channel: dm, thread_ts: ts });
    expect(reply?.args.text).toContain('Reminder 1');

    const escalated = eventOf('escalated', outcome, {
      escalation: { level: 1, to: ['role:finance'] },
    });
    const toFinance = await channel.send(
      deliveryOf(escalated, 'role:finance'),
      contextFor('role:finance', { slack: 'CFINANCE' }),
    );
    expect(toFinance?.ref).toMatch(/^CFINANCE:/);
    const whole = fake.callsOf('chat.postMessage')[2];
    expect(buttonsOf(whole?.args.blocks as Block[])).toHaveLength(2);
  });

  it('rewrites the message once expired or cancelled; tells someone who never got it', async () => {
    const outcome = await paused(3);
    const requested = await requestToAlice(outcome);
    const expired = eventOf('expired', outcome);
    expired.approval.status = 'expired';
    await channel.send(
      deliveryOf(expired),
      contextFor('user:alice', { slack: 'UALICE' }, { requested }),
    );
    const [update] = fake.callsOf('chat.update');
    expect(update?.args.ts).toBe((requested.ref as string).split(':')[1]);
    expect(textOf(update?.args.blocks as Block[])).toContain('Expired');
    expect(buttonsOf(update?.args.blocks as Block[])).toHaveLength(0);

    const cancelled = eventOf('cancelled', outcome, { actor: 'ann' });
    cancelled.approval.status = 'cancelled';
    const told = await channel.send(
      deliveryOf(cancelled, 'role:finance'),
      contextFor('role:finance', { slack: 'CFINANCE' }),
    );
    expect(told?.ref).toMatch(/^CFINANCE:/);
    const posted = fake.callsOf('chat.postMessage').at(-1);
    expect(textOf(posted?.args.blocks as Block[])).toContain('Cancelled by ann');
    expect(buttonsOf(posted?.args.blocks as Block[])).toHaveLength(0);
  });

  it('says when Slack refuses for good, and when to try again', async () => {
    const outcome = await paused(9);
    const event = eventOf('requested', outcome);
    const attempt = (address?: RecipientAddress, token = TOKEN) =>
      slackChannel({ token, signingSecret: SIGNING_SECRET, apiUrl: fake.apiUrl, clock })
        .send(deliveryOf(event), contextFor('user:alice', address))
        .then(
          () => 'sent',
          (error: unknown) => error,
        );
    const refusal = async (result: Promise<unknown>) => {
      const error = await result;
      expect(error).toBeInstanceOf(DeliveryFailure);
      return {
        message: (error as DeliveryFailure).message,
        retryable: (error as DeliveryFailure).retryable,
      };
    };

    expect(await refusal(attempt(undefined))).toMatchObject({ retryable: false });
    expect(fake.calls).toHaveLength(0);
    expect(await refusal(attempt({ slack: 'UALICE' }, 'xoxb-wrong'))).toEqual({
      message: 'Slack refused: invalid_auth',
      retryable: false,
    });
    fake.unknownChannels.add('CGONE');
    expect(await refusal(attempt({ slack: 'CGONE' }))).toEqual({
      message: 'Slack refused: channel_not_found',
      retryable: false,
    });
    fake.failNext(429);
    expect(await refusal(attempt({ slack: 'UALICE' }))).toMatchObject({ retryable: true });
    fake.failNext(503);
    expect(await refusal(attempt({ slack: 'UALICE' }))).toMatchObject({ retryable: true });
    fake.failNext(200, 'internal_error');
    expect(await refusal(attempt({ slack: 'UALICE' }))).toMatchObject({ retryable: true });
    // One attempt each: the outbox retries, the SDK never does behind its back.
    expect(fake.calls.map((c) => c.answer)).toEqual([
      'invalid_auth',
      'channel_not_found',
      'http_429',
      'http_503',
      'internal_error',
    ]);
    expect(await attempt({ slack: 'UALICE' })).toBe('sent');
  });
});

describe('POST /slack/interactivity', () => {
  it('approves as the linked person: audited through Slack, the run completes, the message says who', async () => {
    const outcome = await paused(42);
    const requested = await requestToAlice(outcome);
    const approval = outcome.approvals[0] as ApprovalRequest;
    const value = `${approval.approvalId}|${hashArgs(approval.args)}`;
    const ended = await runEnd(holdpoint, outcome.sessionId);

    const pressed = await press({ user: 'UALICE', action: 'holdpoint_approve', value });
    expect(pressed.status).toBe(200);
    expect(pressed.body).toMatchObject({ response_type: 'ephemeral' });
    expect(String(pressed.body?.text)).toMatch(/^You approved it/);
    const done = await ended.done;
    expect(done.status).toBe('completed');
    const { key } = JSON.parse(
      done.status === 'completed' ? done.result.replace(/^[^{]*/, '') : '{}',
    );
    expect(effectRuns.get(key)).toBe(1);

    const [decided, ...more] = await decisionsOf(outcome.sessionId);
    expect(more).toHaveLength(0);
    expect(decided).toMatchObject({ actor: 'alice', channel: 'slack' });

    const event = eventOf('decided', outcome, {
      actor: 'alice',
      decision: { approved: true, decided_by: 'alice', channel: 'slack' },
    });
    event.approval.status = 'approved';
    await channel.send(
      deliveryOf(event),
      contextFor('user:alice', { slack: 'UALICE' }, { requested }),
    );
    const [update] = fake.callsOf('chat.update');
    const [dm, ts] = (requested.ref as string).split(':');
    expect(update?.args).toMatchObject({ channel: dm, ts });
    const blocks = update?.args.blocks as Block[];
    expect(textOf(blocks)).toContain('Approved by alice (via slack)');
    expect(buttonsOf(blocks)).toHaveLength(0);
    expect(fake.messages.get(requested.ref as string)?.text).toContain('Approved by alice');

    // The same press again (a replay within the window): refused, nothing doubled.
    const again = await press({ user: 'UALICE', action: 'holdpoint_approve', value });
    expect(again.status).toBe(200);
    expect(again.body?.text).toBe('This approval was already decided.');
    expect(await decisionsOf(outcome.sessionId)).toHaveLength(1);
  });

  it('lets a linked role member reject', async () => {
    const outcome = await paused(11);
    const approval = outcome.approvals[0] as ApprovalRequest;
    const pressed = await press({
      user: 'UBOB',
      action: 'holdpoint_reject',
      value: `${approval.approvalId}|${hashArgs(approval.args)}`,
    });
    expect(pressed.body?.text).toMatch(/^You rejected it/);
    expect(await decisionsOf(outcome.sessionId)).toEqual([
      expect.objectContaining({ actor: 'bob', channel: 'slack' }),
    ]);
  });

  it('refuses unsigned, forged and stale requests (401), deciding nothing', async () => {
    const outcome = await paused(13);
    const approval = outcome.approvals[0] as ApprovalRequest;
    const value = `${approval.approvalId}|${hashArgs(approval.args)}`;
    const forged = await press({
      user: 'UALICE',
      action: 'holdpoint_approve',
      value,
      secret: 'not-the-secret',
    });
    expect(forged.status).toBe(401);
    const stale = await press({
      user: 'UALICE',
      action: 'holdpoint_approve',
      value,
      timestamp: Math.floor(clock.now() / 1000) - 301,
    });
    expect(stale.status).toBe(401);
    const unsigned = await fetch(`${base}/slack/interactivity`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'payload=%7B%7D',
    });
    expect(unsigned.status).toBe(401);
    expect(await decisionsOf(outcome.sessionId)).toHaveLength(0);
  });

  it('tells an unlinked Slack user so, and one the policy does not allow why, deciding nothing', async () => {
    const outcome = await paused(17);
    const approval = outcome.approvals[0] as ApprovalRequest;
    const value = `${approval.approvalId}|${hashArgs(approval.args)}`;
    const stranger = await press({ user: 'USTRANGER', action: 'holdpoint_approve', value }, 'r2');
    expect(stranger.status).toBe(200);
    expect(stranger.body?.text).toBe(
      'Your Slack account is not linked to Holdpoint, so it cannot decide approvals.',
    );
    const mallory = await press({ user: 'UMALLORY', action: 'holdpoint_approve', value }, 'r3');
    expect(mallory.status).toBe(200);
    expect(mallory.body?.text).toMatch(/^You may not decide this approval/);
    expect(await decisionsOf(outcome.sessionId)).toHaveLength(0);
    // Slack shows a button's answer from its response_url: both heard.
    const heard = () => fake.responses.filter((r) => r.id === 'r2' || r.id === 'r3');
    await expect
      .poll(() =>
        heard()
          .map((r) => r.id)
          .sort(),
      )
      .toEqual(['r2', 'r3']);
    expect(
      heard()
        .map((r) => [r.body.response_type, r.body.text])
        .sort(),
    ).toEqual(
      [
        ['ephemeral', stranger.body?.text],
        ['ephemeral', mallory.body?.text],
      ].sort(),
    );
  });

  it('refuses a press on arguments that are not the ones asked about', async () => {
    const outcome = await paused(19);
    const approval = outcome.approvals[0] as ApprovalRequest;
    const pressed = await press(
      {
        user: 'UALICE',
        action: 'holdpoint_approve',
        value: `${approval.approvalId}|${hashArgs({ amount: 1_000_000 })}`,
      },
      'r4',
    );
    expect(pressed.body?.text).toBe(
      'The arguments changed since this message was sent: nothing was decided.',
    );
    expect(await decisionsOf(outcome.sessionId)).toHaveLength(0);
    await expect
      .poll(() => fake.responses.filter((r) => r.id === 'r4').map((r) => r.body.text))
      .toEqual([pressed.body?.text]);
  });
});

const scratch = new RedisScratch();
afterAll(() => scratch.cleanup());

describe.each([
  ['memory', () => memoryStore()],
  ['redis', () => redisStore({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix })],
])(
  'end to end on the %s store: pause → outbox → Slack → button → run completes → message rewritten',
  (_kind, store) => {
    const slack = new FakeSlack(TOKEN);
    let e2e: Holdpoint;
    let e2eServer: Server;
    let e2eBase: string;

    beforeAll(async () => {
      await slack.start();
      e2e = createHoldpoint({
        apps: [slackApp],
        store: store(),
        sweepIntervalSeconds: false,
        clock,
        notifications: {
          channels: [
            slackChannel({
              token: TOKEN,
              signingSecret: SIGNING_SECRET,
              apiUrl: slack.apiUrl,
              clock,
            }),
          ],
          directory: {
            users: { alice: { slack: 'UALICE' } },
            roles: { finance: { slack: 'CFINANCE' } },
          },
        },
      });
      e2eServer = createServer(e2e.handler);
      await new Promise<void>((resolve) => e2eServer.listen(0, '127.0.0.1', resolve));
      e2eBase = `http://127.0.0.1:${(e2eServer.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => e2eServer.close(resolve));
      await e2e.close();
      await slack.stop();
    });

    it('asks alice and finance in Slack; alice approves there; both messages say so', async () => {
      const outcome = (await e2e.start({ userId: 'ann', query: 'always 64' })) as PendingOutcome;
      expect(outcome.status).toBe('pending_approval');
      const posted = (calls: { method: string }[]) =>
        calls.filter((c) => c.method === 'chat.postMessage');
      await slack.waitFor((calls) => posted(calls).length === 2);
      const asked = slack.callsOf('chat.postMessage');
      expect(asked.map((c) => c.args.channel).sort()).toEqual(['CFINANCE', 'UALICE']);
      const dm = asked.find((c) => c.args.channel === 'UALICE');
      const [approve] = buttonsOf(dm?.args.blocks as Block[]);
      expect(approve?.action_id).toBe('holdpoint_approve');

      const ended = await runEnd(e2e, outcome.sessionId);
      // Alice presses Approve on her direct message: the directory says U-ALICE is alice.
      const pressed = await press(
        { user: 'UALICE', action: 'holdpoint_approve', value: String(approve?.value) },
        'e2e',
        (request) => fetch(new Request(`${e2eBase}/slack/interactivity`, request)),
      );
      expect(pressed).toMatchObject({ status: 200, body: { text: 'You approved it.' } });
      expect((await ended.done).status).toBe('completed');

      const { entries } = await e2e.audit({ sessionId: outcome.sessionId, limit: 200 });
      expect(entries.filter((e) => e.action === 'decided')).toEqual([
        expect.objectContaining({ actor: 'alice', channel: 'slack' }),
      ]);
      await slack.waitFor((calls) => calls.filter((c) => c.method === 'chat.update').length === 2);
      for (const update of slack.callsOf('chat.update')) {
        const ref = `${String(update.args.channel)}:${String(update.args.ts)}`;
        expect(['DALICE', 'CFINANCE']).toContain(update.args.channel);
        expect(slack.messages.get(ref)?.text).toContain('Approved by alice (via slack)');
        expect(buttonsOf(update.args.blocks as Block[])).toHaveLength(0);
      }
      expect(slack.calls.every((c) => c.answer === 'ok')).toBe(true);
    });
  },
);

describe('holdpoint serve with the Slack settings', () => {
  it('posts to Slack and takes the presses at /slack/interactivity', async () => {
    const slack = new FakeSlack(TOKEN);
    await slack.start();
    const config = loadConfig(
      ['--store', 'memory', '--slack-token', TOKEN, '--slack-api-url', slack.apiUrl],
      { SLACK_SIGNING_SECRET: SIGNING_SECRET },
      { apps: [slackApp], notifyDirectory: { users: { alice: { slack: 'UALICE' } } } },
    );
    const served = await holdpointFromConfig(config, {
      clock,
      logger: pino({ level: 'silent' }),
    });
    try {
      const outcome = (await served.holdpoint.start({
        userId: 'ann',
        query: 'always 8',
      })) as PendingOutcome;
      await slack.waitFor((calls) => calls.some((c) => c.method === 'chat.postMessage'));
      const [approve] = buttonsOf(slack.callsOf('chat.postMessage')[0]?.args.blocks as Block[]);
      const pressed = await press(
        { user: 'UALICE', action: 'holdpoint_approve', value: String(approve?.value) },
        'serve',
        (request) => served.holdpoint.routes.fetch(request),
      );
      expect(pressed).toMatchObject({ status: 200, body: { text: 'You approved it.' } });
      const { entries } = await served.holdpoint.audit({
        sessionId: outcome.sessionId,
        limit: 200,
      });
      expect(entries.filter((e) => e.action === 'decided')).toEqual([
        expect.objectContaining({ actor: 'alice', channel: 'slack' }),
      ]);
      await slack.waitFor((calls) => calls.some((c) => c.method === 'chat.update'));
    } finally {
      await served.holdpoint.close();
      await slack.stop();
    }
  });
});

describe('Reject asks for a reason (issue 25)', () => {
  /** The endpoint as a server mounts it: Reject opens a modal through the channel. */
  const routes = () =>
    slackInteractivityRoutes({
      runtime: built.runtime,
      logger: pino({ level: 'silent' }),
      signingSecret: SIGNING_SECRET,
      clock,
      principalOf: (id) => slackPrincipalOf(id, channel.users),
      openView: (triggerId, view) => channel.openView(triggerId, view),
    });

  it('opens a modal; its submission rejects with the reason, bound to the hash seen, and the agent says it', async () => {
    const outcome = await paused(21);
    const approval = outcome.approvals[0] as ApprovalRequest;
    const value = `${approval.approvalId}|${hashArgs(approval.args)}`;
    const handler = routes().fetch;
    const pressed = await press({ user: 'UBOB', action: 'holdpoint_reject', value }, 'r1', handler);
    expect(pressed).toEqual({ status: 200, body: undefined });
    const [opened] = fake.callsOf('views.open');
    expect(opened?.answer).toBe('ok');
    expect(opened?.args.trigger_id).toBe('1.2.3');
    const view = opened?.args.view as Record<string, unknown>;
    expect(view).toMatchObject({
      type: 'modal',
      callback_id: 'holdpoint_reject_reason',
      private_metadata: value,
    });
    expect(JSON.stringify(view.blocks)).toContain('plain_text_input');
    // Nothing is decided before the modal is submitted.
    expect(await decisionsOf(outcome.sessionId)).toEqual([]);

    const { done } = await runEnd(holdpoint, outcome.sessionId);
    const submitted = await submitModal(view, 'UBOB', 'wrong account: use savings', handler);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ response_action: 'update' });
    expect(JSON.stringify(submitted.body)).toContain('You rejected it');
    expect(await decisionsOf(outcome.sessionId)).toEqual([
      expect.objectContaining({
        actor: 'bob',
        channel: 'slack',
        approved: false,
        reason: 'wrong account: use savings',
        argsHash: hashArgs(approval.args),
      }),
    ]);
    const ended = await done;
    expect(ended.status === 'completed' && ended.result).toContain('wrong account: use savings');
  });

  it('an empty reason rejects without one; a submission on a decided approval decides nothing more', async () => {
    const outcome = await paused(22);
    const approval = outcome.approvals[0] as ApprovalRequest;
    const value = `${approval.approvalId}|${hashArgs(approval.args)}`;
    const handler = routes().fetch;
    await press({ user: 'UBOB', action: 'holdpoint_reject', value }, 'r1', handler);
    const view = fake.callsOf('views.open')[0]?.args.view as Record<string, unknown>;
    const empty = await submitModal(view, 'UBOB', null, handler);
    expect(JSON.stringify(empty.body)).toContain('You rejected it');
    const [decided] = await decisionsOf(outcome.sessionId);
    expect(decided).toMatchObject({ approved: false });
    expect(decided?.reason).toBeUndefined();
    const again = await submitModal(view, 'UALICE', 'me too', handler);
    expect(JSON.stringify(again.body)).toContain('already decided');
    expect(await decisionsOf(outcome.sessionId)).toHaveLength(1);
  });

  it('refuses a modal opened on arguments that are not the ones standing (ARGS_MISMATCH)', async () => {
    const outcome = await paused(23);
    const approval = outcome.approvals[0] as ApprovalRequest;
    const view = rejectReasonView(approval.approvalId, hashArgs({ amount: 999 })) as Record<
      string,
      unknown
    >;
    const submitted = await submitModal(view, 'UBOB', 'no', routes().fetch);
    expect(JSON.stringify(submitted.body)).toContain('The arguments changed');
    expect(await decisionsOf(outcome.sessionId)).toEqual([]);
  });

  it('rejects at once, without a reason, when Slack will not open the modal', async () => {
    const outcome = await paused(24);
    const approval = outcome.approvals[0] as ApprovalRequest;
    fake.expiredTriggers.add('1.2.3');
    try {
      const pressed = await press(
        {
          user: 'UBOB',
          action: 'holdpoint_reject',
          value: `${approval.approvalId}|${hashArgs(approval.args)}`,
        },
        'r1',
        routes().fetch,
      );
      expect(fake.callsOf('views.open')[0]?.answer).toBe('expired_trigger_id');
      expect(pressed.body?.text).toMatch(/^You rejected it/);
    } finally {
      fake.expiredTriggers.clear();
    }
  });
});

describe('a press that resumes a long run', () => {
  it('is answered once the decision is stored, while the run goes on', async () => {
    const calls = new HeldCalls();
    const runtime = runtimeOn(
      new MemoryStore({ sessionTtlSeconds: 600 }),
      heldToolApp(calls),
      clock,
    );
    const routes = slackInteractivityRoutes({
      runtime,
      logger: pino({ level: 'silent' }),
      signingSecret: SIGNING_SECRET,
      clock,
      principalOf: (id) => (id === 'UANN' ? ann : undefined),
    });
    const outcome = (await runtime.operations.startRun({ query: 'pay' }, ann)) as PendingOutcome;
    const approval = outcome.approvals[0] as ApprovalRequest;
    const pressed = await press(
      {
        user: 'UANN',
        action: 'holdpoint_approve',
        value: `${approval.approvalId}|${hashArgs(approval.args)}`,
      },
      'r1',
      routes.fetch,
    );
    // The payment waits in its tool: the run has not ended, yet the press was answered.
    const payment = await calls.next();
    expect(pressed.body?.text).toBe('You approved it.');
    expect(calls.effects).toEqual([]);
    payment.release();
    await expect.poll(() => calls.effects).toHaveLength(1);
    await runtime.close();
  });
});

describe('slackPrincipalOf', () => {
  it('links Slack users by the mapping, then by the directory, else not at all', () => {
    const directory = {
      users: { carol: { slack: 'UCAROL' } },
      roles: { finance: { slack: 'CFIN' } },
    };
    expect(slackPrincipalOf('UBOB', channel.users, directory)).toEqual({
      id: 'bob',
      roles: ['finance'],
    });
    expect(slackPrincipalOf('UCAROL', channel.users, directory)).toEqual({
      id: 'carol',
      roles: [],
    });
    expect(slackPrincipalOf('CFIN', channel.users, directory)).toBeUndefined();
    expect(slackPrincipalOf('toString', channel.users, directory)).toBeUndefined();
  });

  it("gives a person the roles the directory's members name, unless the mapping names their roles", () => {
    const directory = {
      users: { carol: { slack: 'UCAROL' } },
      members: { finance: ['carol', 'dave'], audit: ['carol'] },
    };
    expect(slackPrincipalOf('UCAROL', {}, directory)).toEqual({
      id: 'carol',
      roles: ['finance', 'audit'],
    });
    expect(slackPrincipalOf('UDAVE', { UDAVE: 'dave' }, directory)).toEqual({
      id: 'dave',
      roles: ['finance'],
    });
    expect(slackPrincipalOf('UDAVE', { UDAVE: { id: 'dave', roles: ['cfo'] } }, directory)).toEqual(
      { id: 'dave', roles: ['cfo'] },
    );
  });
});
