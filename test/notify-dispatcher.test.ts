import { createHoldpoint, type Holdpoint, memoryStore } from 'holdpoint';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ApprovalEventType } from '../src/core/approval-event.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { ApprovalRequest, Pause } from '../src/core/types.js';
import {
  type DeliveryContext,
  DeliveryFailure,
  type NotificationChannel,
} from '../src/runtime/notify/channel.js';
import { DeliveryDispatcher, type DispatcherOptions } from '../src/runtime/notify/dispatcher.js';
import { approvalAudit } from '../src/session/audit/audit-entries.js';
import { DEFAULT_APPROVERS } from '../src/session/decision/approvers.js';
import { decideTransition } from '../src/session/transitions/index.js';
import type { DeliveryRecord } from '../src/store/outbox.js';
import type { HoldpointStore, SessionSnapshot, Transition } from '../src/store/store.js';
import {
  DECIDER,
  decision,
  lease,
  pausedSession,
} from '../src/store/store-fixtures.test-support.js';
import { TestStores } from '../src/store/test-stores.test-support.js';
import approvalTools from './support/approval-tools-app.js';

const stores = new TestStores();
const running: DeliveryDispatcher[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((dispatcher) => dispatcher.stop()));
  await stores.close();
});
afterAll(() => stores.cleanup());

/** What a channel was handed, in order. */
interface Handed {
  delivery: DeliveryRecord;
  ctx: DeliveryContext;
}

/** A channel that records what it is handed and answers with `answer` (default: sent). */
function recording(
  name: string,
  audience: 'people' | 'endpoint',
  answer: (
    delivery: DeliveryRecord,
    ctx: DeliveryContext,
  ) => Promise<{ ref?: string } | undefined> = async () => undefined,
): NotificationChannel & { handed: Handed[] } {
  const handed: Handed[] = [];
  return {
    name,
    audience,
    handed,
    send: (delivery, ctx) => {
      handed.push({ delivery, ctx });
      return answer(delivery, ctx);
    },
  };
}

/** A pino logger whose lines are kept, to see what was logged at which level. */
function keptLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

function dispatcher(
  store: HoldpointStore,
  clock: ManualClock,
  options: DispatcherOptions,
  logger = pino({ level: 'silent' }),
): DeliveryDispatcher {
  const made = new DeliveryDispatcher(store, options, clock, logger);
  running.push(made);
  return made;
}

describe.each(['memory', 'redis'])('the dispatcher on the %s store', (kind) => {
  const open = () => stores.byKind[kind]?.() as HoldpointStore;

  it('sends each delivery once, to the address the directory gives, even with two dispatchers', async () => {
    const store = open();
    const peer = kind === 'redis' ? open() : store;
    const clock = new ManualClock(Date.now());
    const webhook = recording('webhook', 'endpoint');
    const chat = recording('chat', 'people');
    const options: DispatcherOptions = {
      channels: [webhook, chat],
      directory: { users: { dave: { chat: 'D-1' } }, roles: { admin: { chat: 'C-admins' } } },
      delegateOf: async (userId) => (userId === 'ann-away' ? 'dave' : undefined),
      links: {
        decisionLink: (event, approver) =>
          `https://hp.test/decide/${event.approval.approval_id}/${approver}`,
        decisionLinkTo: (approval, approver) =>
          `https://hp.test/decide/${approval.approvalId}/${approver}`,
        approvalUrl: (approvalId) => `https://hp.test/approvals/${approvalId}`,
      },
    };
    const first = dispatcher(store, clock, options);
    const second = new DeliveryDispatcher(peer, options, clock, pino({ level: 'silent' }));
    running.push(second);
    const { pause } = await pausedSession(store, 1, clock.now());
    await Promise.all([first.dispatch(), second.dispatch()]);

    expect(webhook.handed).toHaveLength(1);
    expect(webhook.handed[0]?.delivery).toMatchObject({
      recipient: 'endpoint:webhook',
      attempts: 1,
      event: { type: 'requested', approval: { approval_id: pause.approvals[0]?.approvalId } },
    });
    expect(
      chat.handed.map((h) => h.ctx.recipient).sort((a, b) => a.audience.localeCompare(b.audience)),
    ).toEqual([
      { audience: 'role:admin', address: { chat: 'C-admins' } },
      { audience: `user:${pause.userId}` },
    ]);
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    const ctx = chat.handed[0]?.ctx as DeliveryContext;
    expect(ctx.decisionLink(approvalId, 'bob')).toBe(`https://hp.test/decide/${approvalId}/bob`);
    expect(ctx.decisionLink('another-approval', 'bob')).toBeUndefined();
    expect(ctx.approvalUrl(approvalId)).toBe(`https://hp.test/approvals/${approvalId}`);
    const sent = await store.outbox.get(webhook.handed[0]?.delivery.deliveryId ?? '');
    expect(sent).toMatchObject({ status: 'sent', attempts: 1, sentAt: clock.now() });
    // Nothing left: another pass sends nothing.
    expect(await first.dispatch()).toBe(0);
  });

  it("sends to an out-of-office person's delegate, on their behalf", async () => {
    const store = open();
    const clock = new ManualClock(Date.now());
    const chat = recording('chat', 'people');
    const made = dispatcher(store, clock, {
      channels: [chat],
      directory: { users: { dave: { chat: 'D-1' } } },
      delegateOf: async (userId) => (userId.startsWith('user-') ? 'dave' : undefined),
    });
    const { userId } = await pausedSession(store, 1, clock.now());
    await made.dispatch();
    expect(chat.handed.map((h) => h.ctx.recipient)).toContainEqual({
      audience: 'user:dave',
      address: { chat: 'D-1' },
      onBehalfOf: userId,
    });
  });

  it('retries with backoff, then gives up and says so at warn', async () => {
    const store = open();
    const clock = new ManualClock(Date.now());
    const failing = recording('webhook', 'endpoint', async () => {
      throw new Error('HTTP 503');
    });
    const settled: string[] = [];
    const { logger, lines } = keptLogger();
    const made = dispatcher(
      store,
      clock,
      {
        channels: [failing],
        maxAttempts: 3,
        backoff: { baseMs: 1_000, maxMs: 1_500 },
        random: () => 0.5,
        onSettled: (_delivery, result) => settled.push(result.status),
      },
      logger,
    );
    await pausedSession(store, 1, clock.now());
    const start = clock.now();
    await made.dispatch();
    const [{ delivery }] = failing.handed as [Handed];
    // 1 s, less a tenth (half the fifth of jitter).
    expect(await store.outbox.get(delivery.deliveryId)).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: 'HTTP 503',
      nextAttemptAt: start + 900,
    });
    clock.advance(899);
    expect(await made.dispatch()).toBe(0);
    clock.advance(1);
    expect(await made.dispatch()).toBe(1);
    // Doubled, but capped at 1.5 s.
    expect((await store.outbox.get(delivery.deliveryId))?.nextAttemptAt).toBe(clock.now() + 1_350);
    clock.advance(1_350);
    await made.dispatch();
    expect(await store.outbox.get(delivery.deliveryId)).toMatchObject({
      status: 'gave_up',
      attempts: 3,
      lastError: 'HTTP 503 (attempt 3 of 3)',
    });
    expect(failing.handed).toHaveLength(3);
    expect(settled).toEqual(['failed', 'failed', 'gave_up']);
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'gave up a notification',
    ]);
    clock.advance(3_600_000);
    expect(await made.dispatch()).toBe(0);
  });

  it('gives up at once on a failure that is not retryable', async () => {
    const store = open();
    const clock = new ManualClock(Date.now());
    const refused = recording('webhook', 'endpoint', async () => {
      throw new DeliveryFailure('HTTP 404', false);
    });
    const made = dispatcher(store, clock, { channels: [refused] });
    await pausedSession(store, 1, clock.now());
    await made.dispatch();
    const id = refused.handed[0]?.delivery.deliveryId ?? '';
    expect(await store.outbox.get(id)).toMatchObject({
      status: 'gave_up',
      attempts: 1,
      lastError: 'HTTP 404',
    });
  });

  it('aborts an attempt that takes too long, even through a channel that ignores its signal', async () => {
    const store = open();
    const clock = new ManualClock(Date.now());
    let signal: AbortSignal | undefined;
    const hanging = recording('webhook', 'endpoint', (_delivery, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    });
    const made = dispatcher(store, clock, { channels: [hanging], attemptTimeoutMs: 50 });
    await pausedSession(store, 1, clock.now());
    await made.dispatch();
    expect(signal?.aborted).toBe(true);
    const id = hanging.handed[0]?.delivery.deliveryId ?? '';
    expect(await store.outbox.get(id)).toMatchObject({
      status: 'failed',
      lastError: 'No answer within 50 ms.',
    });
  });

  it('stops at once, its attempts in flight left to be retried', async () => {
    const store = open();
    const clock = new ManualClock(Date.now());
    let handed: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      handed = resolve;
    });
    const hanging = recording('webhook', 'endpoint', () => {
      handed();
      return new Promise(() => {});
    });
    const made = new DeliveryDispatcher(
      store,
      { channels: [hanging] },
      clock,
      pino({ level: 'silent' }),
    );
    await pausedSession(store, 1, clock.now());
    const pass = made.dispatch();
    await reached;
    await made.stop();
    expect(await pass).toBe(1);
    const id = hanging.handed[0]?.delivery.deliveryId ?? '';
    expect(await store.outbox.get(id)).toMatchObject({
      status: 'failed',
      lastError: 'The dispatcher stopped.',
    });
    // Stopped: commits plan nothing more, and nothing is sent.
    expect(store.outbox.planner).toBeUndefined();
    expect(await made.dispatch()).toBe(0);
  });

  it("finds this recipient's delivery of an earlier event of the same approval", async () => {
    const store = open();
    const clock = new ManualClock(Date.now());
    const earlier: (DeliveryRecord | undefined)[] = [];
    const chat = recording('chat', 'people', async (delivery, ctx) => {
      if (delivery.event.type === 'decided')
        earlier.push(await ctx.earlier('requested' as ApprovalEventType));
      return { ref: `C1:${delivery.event.type}:${delivery.recipient}` };
    });
    const made = dispatcher(store, clock, { channels: [chat] });
    const { sessionId, pause } = await pausedSession(store, 1, clock.now());
    await made.dispatch();
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    await store.apply(sessionId, decideTransition, [
      { decisions: [decision(approvalId, clock.now() + 1)] },
      clock.now() + 1,
      lease(clock.now()),
      DECIDER,
    ]);
    clock.advance(1);
    await made.dispatch();
    expect(earlier).toHaveLength(2);
    expect(earlier.map((d) => d?.ref).sort()).toEqual([
      'C1:requested:role:admin',
      `C1:requested:user:${pause.userId}`,
    ]);
    expect(earlier.every((d) => d?.event.type === 'requested' && d.status === 'sent')).toBe(true);
  });

  it("finds a recipient's delivery of the escalation step that reached it, not a later one", async () => {
    const store = open();
    const clock = new ManualClock(Date.now());
    const found: Record<string, string | undefined> = {};
    const chat = recording('chat', 'people', async (delivery, ctx) => {
      if (delivery.event.type === 'decided') {
        found[delivery.recipient] = (await ctx.earlier('escalated'))?.ref;
      }
      return {
        ref: `${delivery.event.type}:${delivery.event.escalation?.level}:${delivery.recipient}`,
      };
    });
    const made = dispatcher(store, clock, { channels: [chat] });
    const { sessionId, pause } = await pausedSession(store, 1, clock.now());
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    for (const to of [['role:cfo'], ['user:dave']]) {
      await store.apply(sessionId, escalate, [to, clock.now()]);
    }
    // The steps' messages are sent (their refs kept) before the decision is.
    await made.dispatch();
    await store.apply(sessionId, decideTransition, [
      { decisions: [decision(approvalId, clock.now() + 1)] },
      clock.now() + 1,
      lease(clock.now()),
      DECIDER,
    ]);
    clock.advance(1);
    await made.dispatch();
    expect(found).toEqual({
      'role:cfo': 'escalated:1:role:cfo',
      'user:dave': 'escalated:2:user:dave',
      'role:admin': undefined,
      [`user:${pause.userId}`]: undefined,
    });
  });
});

/**
 * A test stand-in for an escalation step: the approval's deciders gain `to` and an
 * `escalated` line says so (as the SLA's transition writes it).
 */
function escalate(snapshot: SessionSnapshot, to: string[], now: number): Transition<void> {
  const pause = structuredClone(snapshot.pause as Pause);
  const approval = pause.approvals[0] as ApprovalRequest;
  const approvers = approval.approvers ?? { ...DEFAULT_APPROVERS };
  approval.approvers = {
    ...approvers,
    roles: [...approvers.roles, ...to.filter((a) => a.startsWith('role:')).map((a) => a.slice(5))],
    users: [...approvers.users, ...to.filter((a) => a.startsWith('user:')).map((a) => a.slice(5))],
  };
  const escalations = (approval.slaState?.escalations ?? 0) + 1;
  approval.slaState = { reminders: 0, escalations };
  return {
    writes: {
      meta: { ...snapshot.meta, updatedAt: now },
      pauses: [pause],
      audit: [approvalAudit(pause, approval, 'escalated', 'system', now, { to })],
    },
  };
}

describe('createHoldpoint with notifications', () => {
  const holdpoints: Holdpoint[] = [];
  afterAll(async () => {
    for (const holdpoint of holdpoints) await holdpoint.close();
  });

  it('hands a pause to the channels once its commit is stored, then its decision', async () => {
    const handed: DeliveryRecord[] = [];
    let told: (() => void) | undefined;
    const channel: NotificationChannel = {
      name: 'mine',
      audience: 'endpoint',
      send: async (delivery) => {
        handed.push(delivery);
        told?.();
        return undefined;
      },
    };
    const holdpoint = createHoldpoint({
      apps: [approvalTools],
      store: memoryStore(),
      sweepIntervalSeconds: false,
      notifications: { channels: [channel] },
    });
    holdpoints.push(holdpoint);
    const requested = new Promise<void>((resolve) => {
      told = resolve;
    });
    const paused = await holdpoint.start({ userId: 'ann', query: 'always 1' });
    expect(paused.status).toBe('pending_approval');
    if (paused.status !== 'pending_approval') return;
    // Nudged by the commit: no sweep runs here.
    await requested;
    const [approval] = paused.approvals;
    expect(handed.map((d) => d.event.type)).toEqual(['requested']);
    expect(handed[0]?.event).toMatchObject({
      app: approvalTools.name,
      approval: {
        approval_id: approval?.approvalId,
        tool_name: 'always_confirm',
        status: 'pending',
      },
    });
    const decided = new Promise<void>((resolve) => {
      told = resolve;
    });
    await holdpoint.decide({
      approvalId: approval?.approvalId ?? '',
      approved: true,
      decidedBy: { id: 'bob', roles: ['admin'] },
    });
    await decided;
    expect(handed.map((d) => d.event.type)).toEqual(['requested', 'decided']);
    expect(handed[1]?.event).toMatchObject({
      actor: 'bob',
      decision: { approved: true, decided_by: 'bob' },
      approval: { status: 'approved' },
    });
  });

  it('ends each attempt at attemptTimeoutSeconds, telling the channel through its signal', async () => {
    let aborted: (reason: unknown) => void = () => {};
    const abortedWith = new Promise<unknown>((resolve) => {
      aborted = resolve;
    });
    const slow: NotificationChannel = {
      name: 'slow',
      audience: 'endpoint',
      send: (_delivery, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted(ctx.signal.reason);
            reject(ctx.signal.reason);
          });
        }),
    };
    const holdpoint = createHoldpoint({
      apps: [approvalTools],
      sweepIntervalSeconds: false,
      notifications: { channels: [slow], attemptTimeoutSeconds: 0.05 },
    });
    holdpoints.push(holdpoint);
    await holdpoint.start({ userId: 'ann', query: 'always 1' });
    expect(await abortedWith).toMatchObject({ message: 'No answer within 50 ms.' });
  });

  it('refuses channels that are not channels, and two of one name', () => {
    const channel = { name: 'x', audience: 'endpoint' as const, send: async () => undefined };
    expect(() =>
      createHoldpoint({ apps: [approvalTools], notifications: { channels: [channel, channel] } }),
    ).toThrow(/same name/);
    expect(() =>
      createHoldpoint({
        apps: [approvalTools],
        notifications: { channels: [{ name: 'x' } as unknown as NotificationChannel] },
      }),
    ).toThrow(/notification channel/);
    // Links start with the server's address, which people open in a browser: http(s) only.
    const links = { baseUrl: 'javascript:alert(1)//', secret: 'x'.repeat(32) };
    expect(() =>
      createHoldpoint({ apps: [approvalTools], notifications: { channels: [], links } }),
    ).toThrow(/http:\/\/ or https:\/\//);
  });
});
