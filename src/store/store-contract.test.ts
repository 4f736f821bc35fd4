import { setTimeout as sleep } from 'node:timers/promises';
import { createEvent, type Session } from '@google/adk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf } from '../core/errors.test-support.js';
import type { AuditEntry, Decision, Pause, RunRecord } from '../core/types.js';
import { MemoryStore } from './memory-store.js';
import { RedisScratch, TEST_REDIS_URL } from './redis-scratch.test-support.js';
import { RedisStore } from './redis-store.js';
import type { HoldpointStore } from './store.js';

/** A store, and a second handle on the same data (another process for Redis). */
interface Subject {
  store: HoldpointStore;
  peer: HoldpointStore;
  close(): Promise<void>;
}

const scratch = new RedisScratch();

const subjects: { kind: string; open: () => Subject }[] = [
  {
    kind: 'memory',
    open: () => {
      const store = new MemoryStore();
      return { store, peer: store, close: async () => {} };
    },
  },
  {
    kind: 'redis',
    open: () => {
      const options = { url: TEST_REDIS_URL, keyPrefix: scratch.prefix, sessionTtlSeconds: 600 };
      const store = new RedisStore(options);
      const peer = new RedisStore(options);
      return {
        store,
        peer,
        close: async () => {
          await Promise.all([store.close(), peer.close()]);
        },
      };
    },
  },
];

afterAll(() => scratch.cleanup());

const APP = 'contract-app';
const HOUR = 3_600_000;
let counter = 0;

function unique(name: string): string {
  counter += 1;
  return `${name}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

function newRun(sessionId: string, userId: string, now: number): RunRecord {
  return {
    invocationId: unique('inv'),
    sessionId,
    app: APP,
    userId,
    query: 'send $200 to Jiro',
    status: 'running',
    startedAt: now,
    updatedAt: now,
  };
}

function newPause(run: RunRecord, approvals: number, now: number, ttlMs = HOUR): Pause {
  return {
    pauseId: unique('pause'),
    sessionId: run.sessionId,
    invocationId: run.invocationId,
    app: APP,
    userId: run.userId,
    status: 'pending',
    approvals: Array.from({ length: approvals }, (_, i) => ({
      approvalId: unique(`approval${i}`),
      kind: 'confirmation' as const,
      toolName: 'process_payment',
      toolCallId: unique('call'),
      args: { amount: 200, recipient: 'Jiro' },
      hint: 'Send $200 to Jiro?',
      createdAt: now,
      expiresAt: now + ttlMs,
    })),
    decisions: [],
    createdAt: now,
    expiresAt: now + ttlMs,
  };
}

function requested(pause: Pause): AuditEntry[] {
  return pause.approvals.map((a) => ({
    at: pause.createdAt,
    action: 'requested',
    sessionId: pause.sessionId,
    invocationId: pause.invocationId,
    actor: 'system',
    approvalId: a.approvalId,
    toolName: a.toolName,
  }));
}

function decision(approvalId: string, at: number, approved = true): Decision {
  return { approvalId, approved, decidedBy: 'alice', at };
}

describe.each(subjects)('$kind store contract', ({ open }) => {
  let subject: Subject;
  let store: HoldpointStore;

  beforeAll(() => {
    subject = open();
    store = subject.store;
  });
  afterAll(() => subject.close());

  /** A session paused on a pause with `approvals` approval requests. */
  async function pausedSession(approvals: number, now = Date.now(), ttlMs = HOUR) {
    const session = await store.sessions.createSession({ appName: APP, userId: unique('user') });
    const run = newRun(session.id, session.userId, now);
    await store.beginRun(run, now + 60_000);
    const pause = newPause(run, approvals, now, ttlMs);
    await store.savePause(pause, requested(pause), now + 2 * ttlMs);
    return { session, run, pause };
  }

  /** The peer approves the only approval of `pause` at `now + 1`, claiming its resume. */
  function peerClaims(pause: Pause, now: number) {
    const approvalId = pause.approvals[0]?.approvalId as string;
    return subject.peer.decide(
      pause.sessionId,
      { decisions: [decision(approvalId, now + 1)] },
      now + 1,
      now + 60_000,
    );
  }

  it('creates the Holdpoint meta with the session', async () => {
    const session = await store.sessions.createSession({ appName: APP, userId: 'ann' });
    expect(await store.getMeta(session.id)).toMatchObject({
      sessionId: session.id,
      app: APP,
      userId: 'ann',
      status: 'idle',
    });
    expect(await store.getMeta('no-such-session')).toBeUndefined();
  });

  it('runs, pauses, collects every decision, claims once and finishes', async () => {
    const now = Date.now();
    const { session, run, pause } = await pausedSession(2, now);
    const [first, second] = pause.approvals.map((a) => a.approvalId) as [string, string];

    expect(await store.getMeta(session.id)).toMatchObject({
      status: 'paused',
      pauseId: pause.pauseId,
    });
    expect(await store.getRun(session.id, run.invocationId)).toMatchObject({ status: 'paused' });
    expect(await store.listPausedSessions()).toContain(session.id);
    expect(await store.findApproval(second)).toBe(session.id);

    const partial = await store.decide(
      session.id,
      { decisions: [decision(first, now + 1)] },
      now + 1,
      now + 60_000,
    );
    expect(partial.outcome).toBe('pending');
    expect(partial.pause.decisions).toHaveLength(1);

    const last = await store.decide(
      session.id,
      { decisions: [decision(second, now + 2)] },
      now + 2,
      now + 60_000,
    );
    expect(last.outcome).toBe('claimed');
    expect(last.pause.status).toBe('resuming');
    expect(await store.getMeta(session.id)).toMatchObject({ status: 'running' });
    expect(await store.listPausedSessions()).not.toContain(session.id);
    expect(
      await codeOf(
        store.decide(session.id, { decisions: [decision(second, now + 3)] }, now + 3, now),
      ),
    ).toBe('ALREADY_DECIDED');

    await store.finishRun(
      session.id,
      run.invocationId,
      { status: 'completed', result: 'sent', audit: [] },
      now + 4,
    );
    expect(await store.getMeta(session.id)).toMatchObject({ status: 'idle' });
    expect(await store.getPause(session.id, pause.pauseId)).toMatchObject({ status: 'resumed' });
    expect(await store.getRun(session.id, run.invocationId)).toMatchObject({
      status: 'completed',
      result: 'sent',
    });
    const actions = (await store.listAudit(session.id)).map((line) => line.action);
    expect(actions.filter((a) => a === 'requested')).toHaveLength(2);
    expect(actions.filter((a) => a === 'decided')).toHaveLength(2);
  });

  it('creates a session with its first run already holding it', async () => {
    const now = Date.now();
    const userId = unique('user');
    const run = newRun(unique('session'), userId, now);
    const { session, stored } = await store.createRunningSession(run, now + 60_000);
    expect(session).toMatchObject({ id: run.sessionId, appName: APP, userId, events: [] });
    await stored;
    expect(await subject.peer.getMeta(run.sessionId)).toMatchObject({
      status: 'running',
      invocationId: run.invocationId,
      leaseUntil: now + 60_000,
    });
    expect(await subject.peer.getRun(run.sessionId, run.invocationId)).toMatchObject({
      status: 'running',
    });
    const listed = await subject.peer.sessions.listSessions({ appName: APP, userId });
    expect(listed.sessions.map((s) => s.id)).toEqual([run.sessionId]);
    const again = store.createRunningSession(run, now + 60_000).then((created) => created.stored);
    expect(await codeOf(again)).toBe('VALIDATION_FAILED');
  });

  it('answers from what the session is now, whatever this handle did to it before', async () => {
    const now = Date.now();
    const { session, run, pause } = await pausedSession(1, now);
    // The peer decides, runs and finishes the pause this handle created.
    await peerClaims(pause, now);
    await subject.peer.finishRun(
      session.id,
      run.invocationId,
      { status: 'completed', audit: [] },
      now + 2,
    );
    // The pause this handle wrote no longer stands in the way of a new run...
    const next = newRun(session.id, session.userId, now + 3);
    expect(await codeOf(store.beginRun(next, now + 60_000))).toBe('ok');
    expect(await subject.peer.getMeta(session.id)).toMatchObject({
      status: 'running',
      invocationId: next.invocationId,
    });
    // ...and a run this handle began can be ended by the peer, then paused by nobody.
    await subject.peer.finishRun(
      session.id,
      next.invocationId,
      { status: 'failed', audit: [] },
      now + 4,
    );
    const late = newPause(next, 1, now + 5);
    expect(await codeOf(store.savePause(late, requested(late), now + HOUR))).toBe('SESSION_BUSY');
    expect(await codeOf(store.cancel(session.id, 'alice', undefined, now + 6))).toBe(
      'NO_PENDING_APPROVAL',
    );
  });

  it("reads the events another handle's run wrote", async () => {
    const now = Date.now();
    const userId = unique('user');
    const run = newRun(unique('session'), userId, now);
    const { session, stored } = await store.createRunningSession(run, now + 60_000);
    await stored;
    const pause = newPause(run, 1, now);
    await store.savePause(pause, requested(pause), now + HOUR);

    // The peer resumes the pause, appends an event and finishes the run.
    await peerClaims(pause, now);
    const seen = await subject.peer.sessions.getSession({
      appName: APP,
      userId,
      sessionId: session.id,
    });
    const event = createEvent({
      invocationId: run.invocationId,
      author: 'user',
      content: { role: 'user', parts: [{ text: 'from the peer' }] },
      actions: { stateDelta: { step: 2 } },
    });
    await subject.peer.sessions.appendEvent({ session: seen as Session, event });
    await subject.peer.finishRun(
      session.id,
      run.invocationId,
      { status: 'completed', audit: [] },
      now + 2,
    );

    // This handle's next run sees the session as the peer left it.
    await store.beginRun(newRun(session.id, userId, now + 3), now + 60_000);
    const read = await store.sessions.getSession({ appName: APP, userId, sessionId: session.id });
    expect(read?.events.map((e) => e.id)).toEqual([event.id]);
    expect(read?.state).toEqual({ step: 2 });
  });

  it('refuses an unknown approval and changes nothing', async () => {
    const now = Date.now();
    const { session, pause } = await pausedSession(1, now);
    const before = [await store.getMeta(session.id), await store.listAudit(session.id)];
    expect(
      await codeOf(store.decide(session.id, { decisions: [decision('nope', now)] }, now, now)),
    ).toBe('APPROVAL_NOT_FOUND');
    expect([await store.getMeta(session.id), await store.listAudit(session.id)]).toEqual(before);
    expect(await store.getPause(session.id, pause.pauseId)).toEqual(pause);
    expect(await store.findApproval('nope')).toBeUndefined();
  });

  it('expires a pause decided too late, and says so every time', async () => {
    const now = Date.now();
    const { session, pause } = await pausedSession(1, now, 1_000);
    const late = pause.expiresAt + 1;
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    expect(
      await codeOf(
        store.decide(session.id, { decisions: [decision(approvalId, late)] }, late, late),
      ),
    ).toBe('APPROVAL_EXPIRED');
    expect(
      await codeOf(
        store.decide(session.id, { decisions: [decision(approvalId, late)] }, late, late),
      ),
    ).toBe('APPROVAL_EXPIRED');
    expect(await store.getPause(session.id, pause.pauseId)).toMatchObject({ status: 'expired' });
    expect(await store.getMeta(session.id)).toMatchObject({ status: 'idle' });
    expect(await store.listPausedSessions()).not.toContain(session.id);
    const actions = (await store.listAudit(session.id)).map((line) => line.action);
    expect(actions).toContain('expired');
  });

  it('cancels a paused run; a decision then gets PAUSE_CANCELLED', async () => {
    const now = Date.now();
    const { session, pause } = await pausedSession(1, now);
    const cancelled = await store.cancel(session.id, 'bob', 'changed my mind', now + 1);
    expect(cancelled.status).toBe('cancelled');
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    expect(
      await codeOf(store.decide(session.id, { decisions: [decision(approvalId, now)] }, now, now)),
    ).toBe('PAUSE_CANCELLED');
    expect((await store.listAudit(session.id)).map((line) => line.action)).toContain('cancelled');
    expect(await codeOf(store.cancel(session.id, 'bob', undefined, now + 2))).toBe(
      'NO_PENDING_APPROVAL',
    );
  });

  it('refuses a new run while the session is paused', async () => {
    const now = Date.now();
    const { session } = await pausedSession(1, now);
    expect(await codeOf(store.beginRun(newRun(session.id, session.userId, now), now))).toBe(
      'SESSION_PAUSED',
    );
    expect(await codeOf(store.beginRun(newRun('no-such-session', 'u', now), now))).toBe(
      'SESSION_NOT_FOUND',
    );
  });

  it('lets exactly one of 20 concurrent deciders claim the resume', async () => {
    const now = Date.now();
    const { session, pause } = await pausedSession(1, now);
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        codeOf(
          (i % 2 ? subject.peer : store)
            .decide(
              session.id,
              { decisions: [decision(approvalId, now + i)] },
              now + 1,
              now + 60_000,
            )
            .then((result) => {
              if (result.outcome !== 'claimed') throw new Error(`unexpected ${result.outcome}`);
            }),
        ),
      ),
    );
    expect(results.filter((code) => code === 'ok')).toHaveLength(1);
    expect(results.filter((code) => code === 'ALREADY_DECIDED')).toHaveLength(19);
    const decided = (await store.listAudit(session.id)).filter((line) => line.action === 'decided');
    expect(decided).toHaveLength(1);
  });

  it('lets exactly one of 20 concurrent early deciders hold a claim', async () => {
    const now = Date.now();
    const { session, pause } = await pausedSession(1, now);
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    // As the runtime does: an early claim that did not hold is decided again.
    const decide = async (handle: HoldpointStore, i: number) => {
      const batch = { decisions: [decision(approvalId, now + i)] };
      const result = await handle.decideEarly(session.id, batch, now + 1, now + 60_000);
      if (result.early && !(await result.early.stored)) {
        result.early.discard();
        return handle.decide(session.id, batch, now + 1, now + 60_000);
      }
      return result;
    };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        codeOf(
          decide(i % 2 ? subject.peer : store, i).then((result) => {
            if (result.outcome !== 'claimed') throw new Error(`unexpected ${result.outcome}`);
          }),
        ),
      ),
    );
    expect(results.filter((code) => code === 'ok')).toHaveLength(1);
    expect(results.filter((code) => code === 'ALREADY_DECIDED')).toHaveLength(19);
    const decided = (await store.listAudit(session.id)).filter((line) => line.action === 'decided');
    expect(decided).toHaveLength(1);
  });

  it('runs an effect once for 20 concurrent callers, who all get its result', async () => {
    const key = unique('effect');
    let runs = 0;
    const effect = async () => {
      runs += 1;
      await sleep(50);
      return { orderId: 'REQ-10-HUMAN', images: [1, 2] };
    };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? subject.peer : store).effects.once(key, effect),
      ),
    );
    expect(runs).toBe(1);
    for (const result of results)
      expect(result).toEqual({ orderId: 'REQ-10-HUMAN', images: [1, 2] });
    expect(await store.effects.once(key, effect)).toEqual({
      orderId: 'REQ-10-HUMAN',
      images: [1, 2],
    });
    expect(runs).toBe(1);
  });

  it('runs a failed effect again on retry', async () => {
    const key = unique('effect');
    await expect(
      store.effects.once(key, async () => {
        throw new Error('payment gateway down');
      }),
    ).rejects.toThrow('payment gateway down');
    expect(await store.effects.once(key, async () => 'paid')).toBe('paid');
  });

  it('makes appended events durable with the commit, readable by another process', async () => {
    const now = Date.now();
    const userId = unique('user');
    const session = await store.sessions.createSession({
      appName: APP,
      userId,
      state: { user_name: 'Ann', 'temp:scratch': 1 },
    });
    const run = newRun(session.id, userId, now);
    await store.beginRun(run, now + 60_000);
    const event = createEvent({
      invocationId: run.invocationId,
      author: 'user',
      content: { role: 'user', parts: [{ text: 'Generate 10 images' }] },
      actions: {
        stateDelta: { intent: 'images', 'app:theme': 'dark', 'user:plan': 'pro', 'temp:x': 1 },
      },
    });
    await store.sessions.appendEvent({ session, event });
    const pause = newPause(run, 1, now);
    await store.savePause(pause, requested(pause), now + HOUR);

    const read = await subject.peer.sessions.getSession({
      appName: APP,
      userId,
      sessionId: session.id,
    });
    expect(read?.events).toHaveLength(1);
    expect(read?.events[0]).toMatchObject({
      id: event.id,
      invocationId: run.invocationId,
      author: 'user',
      content: { role: 'user', parts: [{ text: 'Generate 10 images' }] },
      actions: { stateDelta: { intent: 'images', 'app:theme': 'dark', 'user:plan': 'pro' } },
    });
    expect(read?.events[0]?.actions.stateDelta).not.toHaveProperty('temp:x');
    expect(read?.state).toEqual({
      user_name: 'Ann',
      intent: 'images',
      'app:theme': 'dark',
      'user:plan': 'pro',
    });
    expect(read?.lastUpdateTime).toBe(event.timestamp);
  });

  it("shares app: state across the app and user: state across a user's sessions", async () => {
    const now = Date.now();
    const userId = unique('user');
    const session = await store.sessions.createSession({ appName: APP, userId });
    const run = newRun(session.id, userId, now);
    await store.beginRun(run, now + 60_000);
    await store.sessions.appendEvent({
      session,
      event: createEvent({
        invocationId: run.invocationId,
        author: 'agent',
        actions: { stateDelta: { 'app:motd': 'hello', 'user:lang': 'ja', domain_id: 7 } },
      }),
    });
    await store.finishRun(session.id, run.invocationId, { status: 'completed', audit: [] }, now);

    const sibling = await subject.peer.sessions.createSession({ appName: APP, userId });
    expect(sibling.state).toMatchObject({ 'app:motd': 'hello', 'user:lang': 'ja' });
    expect(sibling.state).not.toHaveProperty('domain_id');
    const stranger = await subject.peer.sessions.createSession({
      appName: APP,
      userId: unique('user'),
    });
    expect(stranger.state).toMatchObject({ 'app:motd': 'hello' });
    expect(stranger.state).not.toHaveProperty('user:lang');
    const other = await store.sessions.createSession({ appName: 'other-app', userId });
    expect(other.state).toEqual({});
  });

  it('gets, lists and deletes sessions as ADK expects', async () => {
    const userId = unique('user');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await store.sessions.createSession({ appName: APP, userId })).id);
      await sleep(2);
    }
    const all = await store.sessions.listSessions({ appName: APP, userId, order: 'asc' });
    expect(all.sessions.map((s) => s.id)).toEqual(ids);
    expect(all).toMatchObject({ page: 1, limit: 3, totalItems: 3, totalPages: 1 });
    const page = await store.sessions.listSessions({
      appName: APP,
      userId,
      order: 'desc',
      limit: 2,
      page: 2,
    });
    expect(page).toMatchObject({ page: 2, limit: 2, totalItems: 3, totalPages: 2 });
    expect(page.sessions.map((s) => s.id)).toEqual([ids[0]]);
    expect(await store.sessions.listSessions({ appName: 'no-such-app', userId, limit: 5 })).toEqual(
      { sessions: [], page: 1, limit: 5, totalItems: 0, totalPages: 0 },
    );

    const sessionId = ids[0] ?? '';
    expect(
      await store.sessions.getSession({ appName: APP, userId: 'x', sessionId }),
    ).toBeUndefined();
    await store.sessions.deleteSession({ appName: APP, userId, sessionId });
    expect(await store.sessions.getSession({ appName: APP, userId, sessionId })).toBeUndefined();
    const left = await store.sessions.listSessions({ appName: APP, userId });
    expect(left.sessions.map((s) => s.id).sort()).toEqual(ids.slice(1).sort());
  });

  it('honours numRecentEvents and afterTimestamp', async () => {
    const now = Date.now();
    const userId = unique('user');
    const session = await store.sessions.createSession({ appName: APP, userId });
    const run = newRun(session.id, userId, now);
    await store.beginRun(run, now + 60_000);
    for (let i = 0; i < 5; i++) {
      await store.sessions.appendEvent({
        session,
        event: createEvent({
          invocationId: run.invocationId,
          author: 'agent',
          timestamp: 1000 + i,
        }),
      });
    }
    await store.finishRun(session.id, run.invocationId, { status: 'completed', audit: [] }, now);
    const key = { appName: APP, userId, sessionId: session.id };
    const recent = await store.sessions.getSession({ ...key, config: { numRecentEvents: 2 } });
    expect(recent?.events.map((e) => e.timestamp)).toEqual([1003, 1004]);
    const after = await store.sessions.getSession({ ...key, config: { afterTimestamp: 1002 } });
    expect(after?.events.map((e) => e.timestamp)).toEqual([1002, 1003, 1004]);
  });
});
