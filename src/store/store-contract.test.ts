import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditLine } from '../core/audit-line.js';
import { codeOf } from '../core/errors.test-support.js';
import { hashArgs, hashJson } from '../core/hash.js';
import type { Principal } from '../core/principal.js';
import type { StoreKind } from '../core/store-kinds.js';
import type { Approvers, Decision, Pause } from '../core/types.js';
import { AUDIT_GENESIS } from '../session/audit/audit-chain.js';
import { verifyAuditChain } from '../session/audit/verify-audit-chain.js';
import {
  beginRunTransition,
  cancelTransition,
  checkpointTransition,
  decideTransition,
  expireTransition,
  finishRunTransition,
  reassignTransition,
  recoverRunTransition,
  renewLeaseTransition,
  savePauseTransition,
  slaStepTransition,
  TITLE_LENGTH,
} from '../session/transitions/index.js';
import { MemoryStore } from './memory/memory-store.js';
import { type DeliveryPlanner, deliveryIdOf } from './outbox.js';
import { PostgresScratch, scratchPool } from './postgres/postgres-scratch.test-support.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { RedisScratch, TEST_REDIS_URL } from './redis/redis-scratch.test-support.js';
import { RedisStore } from './redis/redis-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { HoldpointStore, PageCursor, SessionTrail } from './store.js';
import {
  APP,
  DECIDER,
  decision,
  HOUR,
  lease,
  newPause,
  newRun,
  pausedSession,
  pausedWithApprovers,
  requested,
  runningSession,
  segmentEnd,
  testPlanner,
  unique,
  userEvent,
  vote,
} from './store-fixtures.test-support.js';
import { testedStores } from './tested-stores.test-support.js';

/** A store, and a second handle on the same data (another process for Redis). */
interface Subject {
  store: HoldpointStore;
  peer: HoldpointStore;
  /** Loses the waiting counts, as approvals stored by a release before them left them. */
  forgetWaiting(): Promise<void>;
  close(): Promise<void>;
}

const scratch = new RedisScratch();
/** The subjects' session lifetime, in ms. */
const TTL_MS = 600_000;

const subjects: { kind: StoreKind; open: () => Subject }[] = [
  {
    kind: 'memory',
    open: () => {
      const store = new MemoryStore({ sessionTtlSeconds: 600 });
      const forgetWaiting = async () =>
        (store as unknown as { waiting: Map<string, number> }).waiting.clear();
      return { store, peer: store, forgetWaiting, close: async () => {} };
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
        forgetWaiting: async () => {
          await scratch.redis.del(`${scratch.prefix}:{index}:waiting`);
        },
        close: async () => {
          await Promise.all([store.close(), peer.close()]);
        },
      };
    },
  },
  {
    kind: 'sqlite',
    open: () => {
      const dir = mkdtempSync(join(tmpdir(), 'hp-'));
      const options = { dataDir: dir, sessionTtlSeconds: 600 };
      const store = new SqliteStore(options);
      const peer = new SqliteStore(options);
      return {
        store,
        peer,
        forgetWaiting: async () => {
          const db = new DatabaseSync(store.path);
          db.exec('DELETE FROM hp_waiting');
          db.close();
        },
        close: async () => {
          await Promise.all([store.close(), peer.close()]);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    kind: 'postgres',
    open: () => {
      const database = new PostgresScratch();
      const pools = [scratchPool(database), scratchPool(database)];
      const [store, peer] = pools.map(
        (pool) => new PostgresStore({ pool, sessionTtlSeconds: 600 }),
      ) as [PostgresStore, PostgresStore];
      return {
        store,
        peer,
        forgetWaiting: async () => {
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          await client.query('DELETE FROM hp_waiting');
          await client.end();
        },
        close: async () => {
          await Promise.all([store.close(), peer.close(), ...pools.map((pool) => pool.end())]);
          await database.cleanup();
        },
      };
    },
  },
];

afterAll(() => scratch.cleanup());

describe.each(testedStores(subjects))('$kind store contract', ({ open }) => {
  let subject: Subject;
  let store: HoldpointStore;
  let peer: HoldpointStore;

  beforeAll(() => {
    subject = open();
    store = subject.store;
    peer = subject.peer;
  });
  afterAll(() => subject.close());

  /** The peer approves the only approval of `pause`, so it resumes the run. */
  function peerResumes(pause: Pause, now: number) {
    const approvalId = pause.approvals[0]?.approvalId as string;
    return peer.apply(pause.sessionId, decideTransition, [
      { decisions: [decision(approvalId, now + 1)] },
      now + 1,
      lease(now),
      DECIDER,
    ]);
  }

  async function actions(sessionId: string): Promise<string[]> {
    return (await store.listAudit(sessionId, 0, 1000)).map((line) => line.action);
  }

  it('creates a session idle, or held by its first run; never twice', async () => {
    const now = Date.now();
    const sessionId = unique('session');
    await store.createSession({ sessionId, app: APP, userId: 'ann', createdAt: now });
    expect((await peer.getSnapshot(sessionId))?.meta).toMatchObject({
      sessionId,
      app: APP,
      userId: 'ann',
      status: 'idle',
    });
    expect(
      await codeOf(store.createSession({ sessionId, app: APP, userId: 'x', createdAt: now })),
    ).toBe('SESSION_EXISTS');
    expect(await store.getSnapshot('no-such-session')).toBeUndefined();

    const { sessionId: held, run, held: holding } = await runningSession(store, now);
    expect(await peer.getSnapshot(held)).toMatchObject({
      meta: { status: 'running', invocationId: run.invocationId, lease: holding },
      run: { status: 'running' },
    });
    const session = await peer.loadSession(held, APP, run.userId);
    expect(session).toMatchObject({ id: held, appName: APP, userId: run.userId, events: [] });
    expect(await peer.loadSession(held, APP, 'someone-else')).toBeUndefined();
  });

  it('runs, pauses, collects every decision, resumes once and finishes', async () => {
    const now = Date.now();
    const { sessionId, run, pause } = await pausedSession(store, 2, now);
    const [first, second] = pause.approvals.map((a) => a.approvalId) as [string, string];

    expect(await peer.getSnapshot(sessionId)).toMatchObject({
      meta: { status: 'paused', pauseId: pause.pauseId },
      run: { status: 'paused' },
      pause: { status: 'pending' },
    });
    expect(await peer.findApproval(second)).toBe(sessionId);

    const partial = await store.apply(sessionId, decideTransition, [
      { decisions: [decision(first, now + 1)] },
      now + 1,
      lease(now),
      DECIDER,
    ]);
    expect(partial.outcome).toBe('pending');
    expect(partial.pause.decisions).toHaveLength(1);

    const held = lease(now);
    const last = await store.apply(sessionId, decideTransition, [
      { decisions: [decision(second, now + 2)] },
      now + 2,
      held,
      DECIDER,
    ]);
    expect(last.outcome).toBe('resumes');
    expect(last.pause.status).toBe('resuming');
    expect((await peer.getSnapshot(sessionId))?.meta).toMatchObject({
      status: 'running',
      lease: held,
    });
    expect(
      await codeOf(
        store.apply(sessionId, decideTransition, [
          { decisions: [decision(second, now + 3)] },
          now + 3,
          lease(now),
          DECIDER,
        ]),
      ),
    ).toBe('ALREADY_DECIDED');

    await store.apply(run.sessionId, finishRunTransition, [
      segmentEnd(run, held, now + 4, { events: [], state: {} }, []),
      {
        status: 'completed',
        result: 'sent',
        audit: [],
      },
    ]);
    expect((await peer.getSnapshot(sessionId))?.meta).toMatchObject({ status: 'idle' });
    expect(await peer.getPause(sessionId, pause.pauseId)).toMatchObject({ status: 'resumed' });
    expect(await peer.getRun(sessionId, run.invocationId)).toMatchObject({
      status: 'completed',
      result: 'sent',
    });
    const lines = await actions(sessionId);
    expect(lines.filter((a) => a === 'requested')).toHaveLength(2);
    expect(lines.filter((a) => a === 'decided')).toHaveLength(2);
    expect(lines).toContain('resumed');
  });

  it('leaves a trail at what each commit stored, and goes on from a fresh read once another commit moved the session', async () => {
    const now = Date.now();
    const sessionId = unique('session');
    const run = newRun(sessionId, 'ann', now);
    const held = lease(now);
    const trail: SessionTrail = {};
    const session = { sessionId, app: APP, userId: 'ann', createdAt: now };
    await store.createSession(session, { run, lease: held }, trail);
    expect(trail.snapshot).toEqual(await peer.getSnapshot(sessionId));
    const pause = newPause(run, 1, now);
    const end = segmentEnd(run, held, now);
    await store.apply(
      sessionId,
      savePauseTransition,
      [end, pause, requested(pause), now + HOUR],
      trail,
    );
    expect(trail.snapshot).toEqual(await peer.getSnapshot(sessionId));
    // The peer decides: the trail is one commit behind, and the finish reads the session.
    const resumed = lease(now);
    const approvalId = pause.approvals[0]?.approvalId as string;
    await peer.apply(sessionId, decideTransition, [
      { decisions: [decision(approvalId, now + 1)] },
      now + 1,
      resumed,
      DECIDER,
    ]);
    const outcome = { status: 'completed' as const, result: 'sent', audit: [] };
    await store.apply(
      sessionId,
      finishRunTransition,
      [segmentEnd(run, resumed, now + 2), outcome],
      trail,
    );
    expect(trail.snapshot).toEqual(await peer.getSnapshot(sessionId));
    expect(trail.snapshot?.meta.status).toBe('idle');
    expect(trail.snapshot?.pause?.status).toBe('resumed');
    expect(await actions(sessionId)).toEqual(['started', 'requested', 'decided', 'resumed']);
  });

  it('asks a refusal on a stale trail again of a fresh read; one that holds there too surfaces once, writing nothing', async () => {
    const now = Date.now();
    const sessionId = unique('session');
    const trail: SessionTrail = {};
    await store.createSession(
      { sessionId, app: APP, userId: 'ann', createdAt: now },
      undefined,
      trail,
    );
    // The trail holds the session idle; the peer begins a run on it meanwhile.
    const run = newRun(sessionId, 'ann', now);
    const held = lease(now);
    await peer.apply(sessionId, beginRunTransition, [run, held]);
    let asked = 0;
    const checkpoint: typeof checkpointTransition = (snapshot, end) => {
      asked += 1;
      return checkpointTransition(snapshot, end);
    };
    const first = { events: [userEvent(run.invocationId, 'one')], state: {} };
    // LEASE_LOST on the idle trail, stored on the running session read then.
    await store.apply(sessionId, checkpoint, [segmentEnd(run, held, now + 1, first)], trail);
    expect(asked).toBe(2);
    expect(trail.snapshot).toEqual(await peer.getSnapshot(sessionId));
    expect(trail.snapshot?.run?.checkpointed).toBe(true);
    // The peer ends the run: the trail is stale again, and the refusal holds on what is read.
    const outcome = { status: 'completed' as const, result: 'sent', audit: [] };
    await peer.apply(sessionId, finishRunTransition, [segmentEnd(run, held, now + 2), outcome]);
    const ended = await peer.getSnapshot(sessionId);
    const lines = await actions(sessionId);
    asked = 0;
    const second = { events: [userEvent(run.invocationId, 'two')], state: {} };
    await expect(
      store.apply(sessionId, checkpoint, [segmentEnd(run, held, now + 3, second)], trail),
    ).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(asked).toBe(2);
    expect(await peer.getSnapshot(sessionId)).toEqual(ended);
    expect(await actions(sessionId)).toEqual(lines);
    const events = (await peer.loadSession(sessionId, APP, 'ann'))?.events ?? [];
    expect(events.map((event) => event.content?.parts?.[0]?.text)).toEqual(['one']);
  });

  it("stores a segment's events and state with its end, not before", async () => {
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const said = userEvent(run.invocationId, 'Generate 10 images', { intent: 'images' });
    const pause = newPause(run, 1, now);
    // Until the end is committed, nothing the segment appended is in the store.
    expect((await peer.loadSession(sessionId, APP, userId))?.events).toEqual([]);
    await store.apply(run.sessionId, savePauseTransition, [
      segmentEnd(run, held, now, {
        events: [said],
        state: { intent: 'images', 'app:theme': 'dark', 'user:plan': 'pro', 'temp:x': 1 },
      }),
      pause,
      requested(pause),
      now + HOUR,
    ]);
    const read = await peer.loadSession(sessionId, APP, userId);
    expect(read?.events.map((e) => e.id)).toEqual([said.id]);
    expect(read?.events[0]).toMatchObject({
      invocationId: run.invocationId,
      author: 'user',
      content: { role: 'user', parts: [{ text: 'Generate 10 images' }] },
      actions: { stateDelta: { intent: 'images' } },
    });
    expect(read?.state).toEqual({ intent: 'images', 'app:theme': 'dark', 'user:plan': 'pro' });
    expect(read?.lastUpdateTime).toBe(said.timestamp);

    // The resumed segment's events follow, in order; an event appended again replaces itself.
    await peerResumes(pause, now);
    const resumedLease = (await peer.getSnapshot(sessionId))?.meta.lease ?? lease(now);
    const answer = userEvent(run.invocationId, 'yes');
    await peer.apply(run.sessionId, finishRunTransition, [
      segmentEnd(run, resumedLease, now + 2, {
        events: [answer, { ...said, branch: 'again' }],
        state: {},
      }),
      { status: 'completed', audit: [] },
    ]);
    const after = await store.loadSession(sessionId, APP, userId);
    expect(after?.events.map((e) => [e.id, e.branch])).toEqual([
      [said.id, 'again'],
      [answer.id, undefined],
    ]);
  });

  it("checkpoints a running segment's events under its lease, each after the last, for any instance", async () => {
    const now = Date.now();
    const { sessionId, userId, run, pause } = await pausedSession(store, 1, now);
    await peerResumes(pause, now);
    const held = (await store.getSnapshot(sessionId))?.meta.lease ?? lease(now);
    const callId = pause.approvals[0]?.toolCallId ?? '';
    const answer = userEvent(run.invocationId, 'approved', { step: 1 });
    const result = userEvent(run.invocationId, 'paid');
    await store.apply(run.sessionId, checkpointTransition, [
      segmentEnd(run, held, now + 2, { events: [answer], state: { step: 1 } }, [callId]),
    ]);
    // Stored at once, for any instance; the run keeps its session, marked checkpointed.
    const read = await peer.loadSession(sessionId, APP, userId);
    expect(read?.events.map((e) => e.id)).toEqual([answer.id]);
    expect(read?.state).toMatchObject({ step: 1 });
    expect(await peer.getSnapshot(sessionId)).toMatchObject({
      meta: { status: 'running', lease: held },
      run: { status: 'running', checkpointed: true },
      pause: { status: 'resuming' },
    });
    expect(await actions(sessionId)).toEqual([
      'started',
      'requested',
      'decided',
      'resumed',
      'executed',
    ]);

    // The next checkpoint follows the last; the end clears the mark.
    await peer.apply(run.sessionId, checkpointTransition, [
      segmentEnd(run, held, now + 3, { events: [result], state: { step: 2 } }, []),
    ]);
    expect((await store.loadSession(sessionId, APP, userId))?.events.map((e) => e.id)).toEqual([
      answer.id,
      result.id,
    ]);
    await store.apply(run.sessionId, finishRunTransition, [
      segmentEnd(run, held, now + 4),
      { status: 'completed', audit: [] },
    ]);
    expect(await peer.getSnapshot(sessionId)).toMatchObject({
      meta: { status: 'idle' },
      run: { status: 'completed' },
      pause: { status: 'resumed' },
    });
    expect((await peer.getSnapshot(sessionId))?.run?.checkpointed).toBeUndefined();
    expect(await actions(sessionId)).toEqual([
      'started',
      'requested',
      'decided',
      'resumed',
      'executed',
    ]);
  });

  it('refuses a checkpoint of a segment that lost its lease, and stores nothing of it', async () => {
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const lapsedAt = now + 130_000;
    await peer.apply(sessionId, recoverRunTransition, [
      run.invocationId,
      lease(lapsedAt),
      'ops',
      lapsedAt,
    ]);
    const late = segmentEnd(run, held, lapsedAt + 1, {
      events: [userEvent(run.invocationId, 'stale')],
      state: { stale: true },
    });
    expect(await codeOf(store.apply(late.sessionId, checkpointTransition, [late]))).toBe(
      'LEASE_LOST',
    );
    const read = await peer.loadSession(sessionId, APP, userId);
    expect(read?.events).toEqual([]);
    expect(read?.state).not.toHaveProperty('stale');
    expect((await peer.getSnapshot(sessionId))?.run?.checkpointed).toBeUndefined();
  });

  it("shares app: state across the app and user: state across a user's sessions", async () => {
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    await store.apply(run.sessionId, finishRunTransition, [
      segmentEnd(run, held, now, {
        events: [userEvent(run.invocationId, 'hi')],
        state: { 'app:motd': 'hello', 'user:lang': 'ja', domain_id: 7 },
      }),
      { status: 'completed', audit: [] },
    ]);
    // (`app:` state is shared with the other tests of this app.)
    expect((await peer.loadSession(sessionId, APP, userId))?.state).toMatchObject({
      'app:motd': 'hello',
      'user:lang': 'ja',
      domain_id: 7,
    });
    const sibling = await runningSession(peer, now, userId);
    const siblingState = (await peer.loadSession(sibling.sessionId, APP, userId))?.state;
    expect(siblingState).toMatchObject({ 'app:motd': 'hello', 'user:lang': 'ja' });
    expect(siblingState).not.toHaveProperty('domain_id');
    const stranger = await runningSession(peer, now);
    const strangerState = (await peer.loadSession(stranger.sessionId, APP, stranger.userId))?.state;
    expect(strangerState).toMatchObject({ 'app:motd': 'hello' });
    expect(strangerState).not.toHaveProperty('user:lang');
  });

  it('counts the runs holding a lease, in force or lapsed, and stops counting an ended one', async () => {
    const now = Date.now();
    const lapsedAt = now + 120_000;
    // Other tests' sessions share the store: what this one adds is counted on top of them.
    const [atNow, atLapse] = [await peer.countRuns(now), await peer.countRuns(lapsedAt)];
    const { sessionId, run, held } = await runningSession(store, now);
    expect(await peer.countRuns(now)).toEqual({
      running: atNow.running + 1,
      interrupted: atNow.interrupted,
    });
    expect(await peer.countRuns(lapsedAt)).toEqual({
      running: atLapse.running,
      interrupted: atLapse.interrupted + 1,
    });
    await store.apply(sessionId, finishRunTransition, [
      segmentEnd(run, held, now + 1),
      { status: 'completed', audit: [] },
    ]);
    expect(await peer.countRuns(now)).toEqual(atNow);
    expect(await peer.countRuns(lapsedAt)).toEqual(atLapse);
  });

  it('keeps a session for the segment that holds it, and lets another run take it only once the lease lapsed', async () => {
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const next = (at: number) => newRun(sessionId, userId, at);
    expect(
      await codeOf(peer.apply(sessionId, beginRunTransition, [next(now + 1), lease(now)])),
    ).toBe('SESSION_BUSY');

    // Renewed: still busy past the first lease's end.
    const renewed = { owner: held.owner, until: now + 120_000 };
    await store.apply(sessionId, renewLeaseTransition, [run.invocationId, renewed]);
    expect(
      await codeOf(peer.apply(sessionId, beginRunTransition, [next(now + 90_000), lease(now)])),
    ).toBe('SESSION_BUSY');
    expect(
      await codeOf(store.apply(sessionId, renewLeaseTransition, [run.invocationId, lease(now)])),
    ).toBe('LEASE_LOST');

    // Lapsed: the run is interrupted. No new run may drop it; it is listed, found by
    // its invocation id, and taken over by a recovery, once.
    const lapsedAt = now + 130_000;
    expect(
      await codeOf(peer.apply(sessionId, beginRunTransition, [next(lapsedAt), lease(lapsedAt)])),
    ).toBe('RUN_INTERRUPTED');
    expect(await peer.findRun(run.invocationId)).toBe(sessionId);
    const listed = await peer.listInterrupted({ limit: 200 }, lapsedAt);
    expect(listed.items.map((s) => s.meta.sessionId)).toContain(sessionId);
    expect(
      (await peer.listInterrupted({ limit: 200 }, now + 60_000)).items.map((s) => s.meta.sessionId),
    ).not.toContain(sessionId);
    const taker = lease(lapsedAt);
    const taken = await peer.apply(sessionId, recoverRunTransition, [
      run.invocationId,
      taker,
      'ops',
      lapsedAt,
    ]);
    expect(taken.meta.lease).toEqual(taker);
    expect(
      await codeOf(
        peer.apply(sessionId, recoverRunTransition, [
          run.invocationId,
          lease(lapsedAt),
          'ops',
          lapsedAt,
        ]),
      ),
    ).toBe('RUN_NOT_INTERRUPTED');
    expect(await actions(sessionId)).toEqual(['started', 'recovered']);
    expect(
      (await peer.listInterrupted({ limit: 200 }, lapsedAt)).items.map((s) => s.meta.sessionId),
    ).not.toContain(sessionId);

    // The segment that lost its lease can neither renew nor end, and leaves nothing behind.
    const late = segmentEnd(run, renewed, now + 140_000, {
      events: [userEvent(run.invocationId, 'stale')],
      state: { stale: true },
    });
    expect(
      await codeOf(store.apply(sessionId, renewLeaseTransition, [run.invocationId, renewed])),
    ).toBe('LEASE_LOST');
    expect(
      await codeOf(
        store.apply(late.sessionId, finishRunTransition, [
          late,
          { status: 'completed', audit: [] },
        ]),
      ),
    ).toBe('LEASE_LOST');
    const pause = newPause(run, 1, now + 140_000);
    expect(
      await codeOf(store.apply(late.sessionId, savePauseTransition, [late, pause, [], now + HOUR])),
    ).toBe('LEASE_LOST');
    const read = await peer.loadSession(sessionId, APP, userId);
    expect(read?.events).toEqual([]);
    expect(read?.state).not.toHaveProperty('stale');
    expect((await peer.getSnapshot(sessionId))?.meta).toMatchObject({
      status: 'running',
      invocationId: run.invocationId,
      lease: taker,
    });
  });

  it('refuses an unknown approval and changes nothing', async () => {
    const now = Date.now();
    const { sessionId, pause } = await pausedSession(store, 1, now);
    const before = [await store.getSnapshot(sessionId), await actions(sessionId)];
    expect(
      await codeOf(
        store.apply(sessionId, decideTransition, [
          { decisions: [decision('nope', now)] },
          now,
          lease(now),
          DECIDER,
        ]),
      ),
    ).toBe('APPROVAL_NOT_FOUND');
    expect([await store.getSnapshot(sessionId), await actions(sessionId)]).toEqual(before);
    expect(await store.getPause(sessionId, pause.pauseId)).toEqual(pause);
    expect(await store.findApproval('nope')).toBeUndefined();
  });

  it('refuses to approve an input request without its value, and changes nothing', async () => {
    const now = Date.now();
    const { sessionId, pause } = await pausedSession(store, 1, now, HOUR, 'input');
    const approvalId = pause.approvals[0]?.approvalId as string;
    const refused = store.apply(sessionId, decideTransition, [
      { decisions: [decision(approvalId, now)] },
      now,
      lease(now),
      DECIDER,
    ]);
    await expect(refused).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { approval_id: approvalId, missing: 'payload' },
    });
    expect(await store.getPause(sessionId, pause.pauseId)).toEqual(pause);
    const valued = { ...decision(approvalId, now), payload: { item: 'Banana' } };
    expect(
      (
        await store.apply(sessionId, decideTransition, [
          { decisions: [valued] },
          now,
          lease(now),
          DECIDER,
        ])
      ).outcome,
    ).toBe('resumes');
  });

  it('expires a pause decided too late, and says so every time, cancel included', async () => {
    const now = Date.now();
    const { sessionId, pause } = await pausedSession(store, 1, now, 1_000);
    const late = pause.expiresAt + 1;
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    const decideLate = () =>
      store.apply(sessionId, decideTransition, [
        { decisions: [decision(approvalId, late)] },
        late,
        lease(late),
        DECIDER,
      ]);
    expect(await codeOf(decideLate())).toBe('APPROVAL_EXPIRED');
    expect(await codeOf(decideLate())).toBe('APPROVAL_EXPIRED');
    expect(await codeOf(store.apply(sessionId, cancelTransition, ['bob', undefined, late]))).toBe(
      'APPROVAL_EXPIRED',
    );
    expect(await store.getPause(sessionId, pause.pauseId)).toMatchObject({ status: 'expired' });
    expect((await store.getSnapshot(sessionId))?.meta).toMatchObject({ status: 'idle' });
    expect(await store.listDuePauses(late + HOUR, 100)).not.toContain(sessionId);
    expect(await actions(sessionId)).toContain('expired');
  });

  it('cancels a paused run; deciding or cancelling again says it was cancelled', async () => {
    const now = Date.now();
    const { sessionId, pause } = await pausedSession(store, 1, now);
    const cancelled = await store.apply(sessionId, cancelTransition, [
      'bob',
      'changed my mind',
      now + 1,
    ]);
    expect(cancelled.status).toBe('cancelled');
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    expect(
      await codeOf(
        store.apply(sessionId, decideTransition, [
          { decisions: [decision(approvalId, now)] },
          now,
          lease(now),
          DECIDER,
        ]),
      ),
    ).toBe('PAUSE_CANCELLED');
    expect(await actions(sessionId)).toContain('cancelled');
    expect(
      await codeOf(store.apply(sessionId, cancelTransition, ['bob', undefined, now + 2])),
    ).toBe('PAUSE_CANCELLED');
  });

  it('answers a resume of a resumed pause ALREADY_DECIDED, and of a newer run NO_PENDING_APPROVAL', async () => {
    const now = Date.now();
    const { sessionId, userId, run, pause } = await pausedSession(store, 1, now);
    const resumed = await peerResumes(pause, now);
    expect(resumed.outcome).toBe('resumes');
    const held = (await store.getSnapshot(sessionId))?.meta.lease ?? lease(now);
    await store.apply(run.sessionId, finishRunTransition, [
      segmentEnd(run, held, now + 2),
      { status: 'completed', audit: [] },
    ]);
    const all = { all: { approved: true, decidedBy: 'bob', at: now + 3 } };
    expect(
      await codeOf(store.apply(sessionId, decideTransition, [all, now + 3, lease(now), DECIDER])),
    ).toBe('ALREADY_DECIDED');
    expect(
      await codeOf(store.apply(sessionId, cancelTransition, ['bob', undefined, now + 3])),
    ).toBe('NO_PENDING_APPROVAL');
    await store.apply(sessionId, beginRunTransition, [
      newRun(sessionId, userId, now + 4),
      lease(now + 4),
    ]);
    expect(
      await codeOf(store.apply(sessionId, decideTransition, [all, now + 5, lease(now), DECIDER])),
    ).toBe('NO_PENDING_APPROVAL');
  });

  it('refuses a new run while paused, naming only the undecided approvals', async () => {
    const now = Date.now();
    const { sessionId, userId, pause } = await pausedSession(store, 2, now);
    const [first, second] = pause.approvals;
    await store.apply(sessionId, decideTransition, [
      { decisions: [decision(first?.approvalId as string, now)] },
      now,
      lease(now),
      DECIDER,
    ]);
    await expect(
      store.apply(sessionId, beginRunTransition, [newRun(sessionId, userId, now), lease(now)]),
    ).rejects.toMatchObject({
      code: 'SESSION_PAUSED',
      details: { pending_approvals: [second] },
    });
    expect(
      await codeOf(
        store.apply('no-such-session', beginRunTransition, [
          newRun('no-such-session', 'u', now),
          lease(now),
        ]),
      ),
    ).toBe('SESSION_NOT_FOUND');
  });

  it('lets exactly one of 20 concurrent deciders resume the run', async () => {
    const now = Date.now();
    const { sessionId, pause } = await pausedSession(store, 1, now);
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        codeOf(
          (i % 2 ? peer : store)
            .apply(sessionId, decideTransition, [
              { decisions: [decision(approvalId, now + i)] },
              now + 1,
              lease(now),
              DECIDER,
            ])
            .then((result) => {
              if (result.outcome !== 'resumes') throw new Error(`unexpected ${result.outcome}`);
            }),
        ),
      ),
    );
    expect(results.filter((code) => code === 'ok')).toHaveLength(1);
    expect(results.filter((code) => code === 'ALREADY_DECIDED')).toHaveLength(19);
    expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
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
      Array.from({ length: 20 }, (_, i) => (i % 2 ? peer : store).effects.once(key, effect)),
    );
    expect(runs).toBe(1);
    for (const result of results) {
      expect(result).toEqual({ orderId: 'REQ-10-HUMAN', images: [1, 2] });
    }
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

  it('records that an approved call started, and what its effect left, for any instance', async () => {
    const key = `${unique('session')}:call-1`;
    expect(await peer.effects.inspect(key)).toEqual({ started: false, state: 'none' });
    await store.effects.markStarted(key);
    expect(await peer.effects.inspect(key)).toEqual({ started: true, state: 'none' });
    let finish: (() => void) | undefined;
    const running = store.effects.once(
      key,
      () => new Promise<{ txn: string }>((resolve) => (finish = () => resolve({ txn: 'T1' }))),
    );
    await vi.waitFor(() => expect(finish).toBeTypeOf('function'));
    expect((await peer.effects.inspect(key)).state).toBe('locked');
    finish?.();
    await running;
    expect(await peer.effects.inspect(key)).toEqual({
      started: true,
      state: 'done',
      result: { txn: 'T1' },
    });
  });

  it('keeps a request key for its first request, and that request’s answer for any instance', async () => {
    const key = unique('request');
    const pending = { fingerprint: 'f1', state: 'pending' as const, until: 1 };
    expect(await store.requests.reserve(key, pending, HOUR)).toBeUndefined();
    expect(await peer.requests.reserve(key, { ...pending, fingerprint: 'f2' }, HOUR)).toEqual(
      pending,
    );
    const done = { ...pending, state: 'done' as const, answer: { ok: { status: 'completed' } } };
    await store.requests.finish(key, done, HOUR);
    expect(await peer.requests.get(key)).toEqual(done);
    await peer.requests.release(key);
    expect(await store.requests.get(key)).toBeUndefined();
    expect(await store.requests.reserve(key, pending, HOUR)).toBeUndefined();
  });

  it('lists due pauses only once they are due', async () => {
    const now = Date.now();
    const { sessionId, pause } = await pausedSession(store, 1, now, 5_000);
    expect(await peer.listDuePauses(now, 1000)).not.toContain(sessionId);
    expect(await peer.listDuePauses(pause.expiresAt, 1000)).toContain(sessionId);
    expect(await peer.apply(sessionId, expireTransition, [pause.expiresAt])).toMatchObject({
      status: 'expired',
    });
    expect(await peer.listDuePauses(pause.expiresAt, 1000)).not.toContain(sessionId);
  });

  it('indexes a pending pause by its next SLA step, and drops it when the pause ends', async () => {
    const now = Date.now();
    const started = await runningSession(store, now);
    const pause = newPause(started.run, 1, now);
    for (const approval of pause.approvals) {
      approval.sla = { remind: { afterSeconds: 60, times: 1 } };
    }
    await store.apply(started.sessionId, savePauseTransition, [
      segmentEnd(started.run, started.held, now),
      pause,
      requested(pause),
      now + 2 * HOUR,
    ]);
    const plain = await pausedSession(store, 1, now);
    expect(await peer.listDueSla(now + 59_999, 1000)).not.toContain(started.sessionId);
    expect(await peer.listDueSla(now + 60_000, 1000)).toContain(started.sessionId);
    expect(await peer.listDueSla(now + HOUR, 1000)).not.toContain(plain.sessionId);
    await peerResumes(pause, now);
    expect(await peer.listDueSla(now + 60_000, 1000)).not.toContain(started.sessionId);
  });

  it('lists a pause for the audiences an escalation or a reassignment adds while it waits', async () => {
    const now = Date.now();
    const started = await runningSession(store, now);
    const pause = newPause(started.run, 1, now);
    const approvalId = pause.approvals[0]?.approvalId as string;
    const cfo = unique('cfo');
    for (const approval of pause.approvals) {
      approval.approvers = {
        owner: true,
        roles: ['admin'],
        users: [],
        quorum: 1,
        requesterMayApprove: true,
      };
      approval.sla = { escalate: [{ afterSeconds: 300, to: { roles: [cfo], users: [] } }] };
    }
    await store.apply(started.sessionId, savePauseTransition, [
      segmentEnd(started.run, started.held, now),
      pause,
      requested(pause),
      now + 2 * HOUR,
    ]);
    const listed = async (audience: string) =>
      (await peer.listPaused({ audiences: [audience], limit: 100 }, now)).items.map(
        (item) => item.meta.sessionId,
      );
    expect(await listed(`role:${cfo}`)).not.toContain(started.sessionId);
    expect(await peer.listDueSla(now + 300_000, 1000)).toContain(started.sessionId);
    const stepped = await peer.apply(started.sessionId, slaStepTransition, [
      now + 300_000,
      lease(now),
    ]);
    expect(stepped).toMatchObject({ steps: 1, outcome: 'pending' });
    expect(await listed(`role:${cfo}`)).toContain(started.sessionId);
    expect(await peer.listDueSla(now + HOUR, 1000)).not.toContain(started.sessionId);
    const bob = unique('bob');
    await store.apply(started.sessionId, reassignTransition, [
      approvalId,
      bob,
      { id: started.userId, roles: [] },
      'away',
      now + 1,
    ]);
    expect(await listed(`user:${bob}`)).toContain(started.sessionId);
    expect(await actions(started.sessionId)).toEqual([
      'started',
      'requested',
      'escalated',
      'delegated',
    ]);
    expect((await chainOf(started.sessionId)).check).toEqual({ ok: true, lines: 4 });
    await peerResumes(pause, now + 2);
    expect(await listed(`user:${bob}`)).not.toContain(started.sessionId);
    expect(await listed(`role:${cfo}`)).not.toContain(started.sessionId);
  });

  it('keeps out-of-office delegations until they end, found by their delegate', async () => {
    const now = Date.now();
    const [ann, bob, cat] = [unique('ann'), unique('bob'), unique('cat')];
    const delegations = store.delegations;
    await delegations.set({
      userId: ann,
      delegate: bob,
      from: now,
      until: now + HOUR,
      createdAt: now,
    });
    await delegations.set({
      userId: cat,
      delegate: bob,
      from: now + 1000,
      until: now + HOUR,
      reason: 'away',
      createdAt: now,
    });
    expect(await peer.delegations.get(ann, now)).toMatchObject({
      delegate: bob,
      until: now + HOUR,
    });
    expect(await peer.delegations.get(cat, now)).toMatchObject({ reason: 'away' });
    expect((await peer.delegations.delegatorsOf(bob, now)).map((d) => d.userId)).toEqual([ann]);
    expect(
      (await peer.delegations.delegatorsOf(bob, now + 1000)).map((d) => d.userId).sort(),
    ).toEqual([ann, cat].sort());
    expect(await peer.delegations.delegatorsOf(bob, now + HOUR)).toEqual([]);
    expect(await peer.delegations.get(ann, now + HOUR)).toBeUndefined();
    // Replaced: the earlier delegate no longer finds it.
    await delegations.set({
      userId: ann,
      delegate: cat,
      from: now,
      until: now + HOUR,
      createdAt: now,
    });
    expect((await peer.delegations.delegatorsOf(bob, now + 1000)).map((d) => d.userId)).toEqual([
      cat,
    ]);
    expect((await peer.delegations.delegatorsOf(cat, now)).map((d) => d.userId)).toEqual([ann]);
    expect(await peer.delegations.clear(ann)).toBe(true);
    expect(await peer.delegations.clear(ann)).toBe(false);
    expect(await store.delegations.get(ann, now)).toBeUndefined();
    expect(await store.delegations.delegatorsOf(cat, now)).toEqual([]);
  });

  it("lists an owner's paused sessions by expiry, a page at a time, and only while paused", async () => {
    const now = Date.now();
    const userId = unique('owner');
    const pauses: Pause[] = [];
    // Five pauses expiring at the same moment, two later: ties page by session id.
    for (const ttl of [HOUR, HOUR, 2 * HOUR, HOUR, HOUR, 3 * HOUR, HOUR]) {
      const started = await runningSession(store, now, userId);
      const pause = newPause(started.run, 1, now, ttl);
      await store.apply(started.sessionId, savePauseTransition, [
        segmentEnd(started.run, started.held, now),
        pause,
        requested(pause),
        now + 4 * HOUR,
      ]);
      pauses.push(pause);
    }
    const expected = [...pauses]
      .sort((a, b) => a.expiresAt - b.expiresAt || (a.sessionId < b.sessionId ? -1 : 1))
      .map((p) => p.sessionId);
    const seen: string[] = [];
    let after: { score: number; member: string } | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const page = await peer.listPaused({ audiences: [`user:${userId}`], limit: 3, after }, now);
      seen.push(...page.items.map((s) => s.meta.sessionId));
      if (!page.next) break;
      after = page.next;
    }
    expect(seen).toEqual(expected);

    // Ended pauses drop out; another owner's never show.
    const [resumed, cancelled] = pauses as [Pause, Pause];
    await peerResumes(resumed, now);
    await store.apply(cancelled.sessionId, cancelTransition, ['bob', undefined, now]);
    const listed = await peer.listPaused({ audiences: [`user:${userId}`], limit: 100 }, now);
    expect(listed.items.map((s) => s.meta.sessionId)).toEqual(
      expected.filter((id) => id !== resumed.sessionId && id !== cancelled.sessionId),
    );
    expect(listed.next).toBeUndefined();
    const other = await peer.listPaused(
      { audiences: [`user:${unique('nobody')}`], limit: 100 },
      now,
    );
    expect(other.items).toEqual([]);
    // Pauses past their time are the sweep's, not the inbox's.
    expect(
      (await peer.listPaused({ audiences: [`user:${userId}`], limit: 100 }, now + 5 * HOUR)).items,
    ).toEqual([]);
  });

  describe('approval policies', () => {
    const owner = (userId: string): Principal => ({ id: userId, roles: [] });
    const maria: Principal = { id: 'maria', roles: ['approver'] };
    const jiro: Principal = { id: 'jiro', roles: ['approver'] };
    const eve: Principal = { id: 'eve', roles: [] };
    const payments: Approvers = {
      owner: false,
      roles: ['approver'],
      users: [],
      quorum: 2,
      requesterMayApprove: false,
    };

    it('settles a quorum approval once two distinct approvers approved; nobody counts twice', async () => {
      const now = Date.now();
      const { sessionId, approvalId } = await pausedWithApprovers(store, payments, now);
      const first = await store.apply(sessionId, decideTransition, [
        { decisions: [vote(approvalId, maria, now)] },
        now,
        lease(now),
        maria,
      ]);
      expect(first.outcome).toBe('pending');
      expect(
        await codeOf(
          peer.apply(sessionId, decideTransition, [
            { decisions: [vote(approvalId, maria, now + 1)] },
            now + 1,
            lease(now),
            maria,
          ]),
        ),
      ).toBe('ALREADY_VOTED');
      const second = await peer.apply(sessionId, decideTransition, [
        { decisions: [vote(approvalId, jiro, now + 2)] },
        now + 2,
        lease(now),
        jiro,
      ]);
      expect(second.outcome).toBe('resumes');
      expect(second.pause.decisions.map((d) => d.decidedBy)).toEqual(['maria', 'jiro']);
      expect(second.pause.decisions[0]?.argsHash).toBe(
        hashArgs({ amount: 200, recipient: 'Jiro' }),
      );
    });

    it('is settled by one denial', async () => {
      const now = Date.now();
      const { sessionId, approvalId } = await pausedWithApprovers(store, payments, now);
      const denied = await store.apply(sessionId, decideTransition, [
        { decisions: [vote(approvalId, maria, now, false)] },
        now,
        lease(now),
        maria,
      ]);
      expect(denied.outcome).toBe('resumes');
    });

    it('lets only those the policy names decide, and keeps the requester from approving', async () => {
      const now = Date.now();
      const { sessionId, approvalId, userId } = await pausedWithApprovers(
        store,
        { ...payments, quorum: 1, users: ['jiro'] },
        now,
      );
      const refused = (who: Principal, approved = true) =>
        store
          .apply(sessionId, decideTransition, [
            { decisions: [vote(approvalId, who, now, approved)] },
            now,
            lease(now),
            who,
          ])
          .catch((error) => error);
      expect(await refused(eve)).toMatchObject({
        code: 'FORBIDDEN',
        details: { reason: 'not_an_approver' },
      });
      expect(await refused(owner(userId))).toMatchObject({ code: 'FORBIDDEN' });
      expect(await refused({ id: userId, roles: ['approver'] })).toMatchObject({
        code: 'FORBIDDEN',
        details: { reason: 'requester' },
      });
      expect(await refused({ id: 'admin', roles: ['admin'] })).toMatchObject({ code: 'FORBIDDEN' });
      // The requester may still deny their own call.
      expect(
        (
          await store.apply(sessionId, decideTransition, [
            { decisions: [vote(approvalId, { id: userId, roles: ['approver'] }, now, false)] },
            now,
            lease(now),
            { id: userId, roles: ['approver'] },
          ])
        ).outcome,
      ).toBe('resumes');
    });

    it('binds a decision to the pause and the arguments the person saw', async () => {
      const now = Date.now();
      const { sessionId, approvalId, pause } = await pausedWithApprovers(store, payments, now);
      const all = { approved: true, decidedBy: 'maria', at: now };
      expect(
        await codeOf(
          store.apply(sessionId, decideTransition, [
            { all, pauseId: 'pause-other' },
            now,
            lease(now),
            maria,
          ]),
        ),
      ).toBe('PAUSE_MISMATCH');
      const stale = { ...vote(approvalId, maria, now), argsHash: hashArgs({ amount: 5 }) };
      expect(
        await codeOf(
          store.apply(sessionId, decideTransition, [
            { decisions: [stale] },
            now,
            lease(now),
            maria,
          ]),
        ),
      ).toBe('ARGS_MISMATCH');
      const bound = await store.apply(sessionId, decideTransition, [
        { all, pauseId: pause.pauseId },
        now,
        lease(now),
        maria,
      ]);
      expect(bound.pause.decisions).toHaveLength(1);
    });

    it('pages the union of audiences without skipping pauses that expire in the same millisecond', async () => {
      // Regression: a cursor from one audience's index skipped, in another, every entry
      // with the cursor's expiry.
      const now = Date.now();
      const named = unique('named');
      const role = unique('role');
      const sessions = [
        (await pausedWithApprovers(store, { ...payments, quorum: 1, users: [named] }, now))
          .sessionId,
        (await pausedWithApprovers(store, { ...payments, roles: [role] }, now)).sessionId,
        (await pausedWithApprovers(store, { ...payments, roles: [role] }, now)).sessionId,
      ];
      const seen: string[] = [];
      let after: { score: number; member: string } | undefined;
      for (let pages = 0; pages < 5; pages++) {
        const page = await peer.listPaused(
          { audiences: [`user:${named}`, `role:${role}`], limit: 1, after },
          now,
        );
        seen.push(...page.items.map((item) => item.meta.sessionId));
        if (!page.next) break;
        after = page.next;
      }
      expect(seen.sort()).toEqual(sessions.sort());
    });

    it('lists a pause for the roles and users that may decide it, not for its owner', async () => {
      const now = Date.now();
      const named = unique('named');
      const role = unique('role');
      const { sessionId, userId } = await pausedWithApprovers(
        store,
        { ...payments, roles: [role], users: [named] },
        now,
      );
      const listed = async (audiences: string[]) =>
        (await peer.listPaused({ audiences, limit: 50 }, now)).items.map((s) => s.meta.sessionId);
      expect(await listed([`role:${role}`])).toEqual([sessionId]);
      expect(await listed([`user:${named}`])).toEqual([sessionId]);
      expect(await listed([`user:${named}`, `role:${role}`])).toEqual([sessionId]);
      expect(await listed([`user:${userId}`])).toEqual([]);
    });
  });

  describe("an owner's sessions", () => {
    /** Who `userId`'s listed sessions are at `now`, a page of `limit` after `after`. */
    async function listed(userId: string, now: number, limit = 100, after?: PageCursor) {
      const page = await peer.listUserSessions(userId, { limit, after }, now);
      return { ids: page.items.map((s) => s.meta.sessionId), next: page.next };
    }

    /** `count` idle sessions of `userId`, made (and so last updated) at now + 0, 1, … */
    async function idleSessions(userId: string, now: number, count: number) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const sessionId = unique('session');
        await store.createSession({ sessionId, app: APP, userId, createdAt: now + i });
        ids.push(sessionId);
      }
      return ids;
    }

    it('lists them most recently updated first, a page at a time, across writes, only theirs', async () => {
      const now = Date.now();
      const userId = unique('owner');
      const [s0, s1, s2, s3, s4] = (await idleSessions(userId, now, 5)) as [
        string,
        string,
        string,
        string,
        string,
      ];
      await runningSession(store, now + 9);
      const first = await listed(userId, now, 2);
      expect(first.ids).toEqual([s4, s3]);
      // s0 is updated between pages: it goes to the top, and the next pages go on
      // from where the first stopped, repeating and skipping nothing.
      await store.apply(s0, beginRunTransition, [newRun(s0, userId, now + 20), lease(now + 20)]);
      const second = await listed(userId, now, 2, first.next);
      expect(second.ids).toEqual([s2, s1]);
      expect(await listed(userId, now, 2, second.next)).toEqual({ ids: [], next: undefined });
      expect((await listed(userId, now)).ids).toEqual([s0, s4, s3, s2, s1]);
      const [top] = (await peer.listUserSessions(userId, { limit: 1 }, now)).items;
      expect(top).toMatchObject({
        meta: { sessionId: s0, userId, status: 'running', title: 'send $200 to Jiro' },
        run: { status: 'running' },
      });
      expect((await listed(unique('nobody'), now)).ids).toEqual([]);
    });

    it('pages through sessions updated in the same millisecond one by one', async () => {
      const now = Date.now();
      const userId = unique('owner');
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const sessionId = unique('session');
        await store.createSession({ sessionId, app: APP, userId, createdAt: now });
        ids.push(sessionId);
      }
      const seen: string[] = [];
      let page = await listed(userId, now, 1);
      for (let pages = 0; pages < 6 && page.ids.length > 0; pages++) {
        seen.push(...page.ids);
        if (!page.next) break;
        page = await listed(userId, now, 1, page.next);
      }
      expect(seen).toEqual([...ids].sort().reverse());
    });

    it('titles a session by the start of its first message, kept through later runs', async () => {
      const now = Date.now();
      const userId = unique('owner');
      const sessionId = unique('session');
      const run = {
        ...newRun(sessionId, userId, now),
        query: `  Plan   a trip ${'x'.repeat(200)}`,
      };
      const held = lease(now);
      await store.createSession(
        { sessionId, app: APP, userId, createdAt: now },
        { run, lease: held },
      );
      const title = (await peer.getSnapshot(sessionId))?.meta.title ?? '';
      expect([...title]).toHaveLength(TITLE_LENGTH);
      expect(title.startsWith('Plan a trip xxx')).toBe(true);
      expect(title.endsWith('…')).toBe(true);
      await store.apply(run.sessionId, finishRunTransition, [
        segmentEnd(run, held, now + 1),
        { status: 'completed', audit: [] },
      ]);
      await store.apply(sessionId, beginRunTransition, [
        { ...newRun(sessionId, userId, now + 2), query: 'again' },
        lease(now),
      ]);
      expect((await peer.getSnapshot(sessionId))?.meta.title).toBe(title);
    });

    it('leaves a session out a session TTL after its last update', async () => {
      const now = Date.now();
      const userId = unique('owner');
      const [older, newer] = (await idleSessions(userId, now, 2)) as [string, string];
      expect((await listed(userId, now + TTL_MS - 1)).ids).toEqual([newer, older]);
      expect((await listed(userId, now + TTL_MS)).ids).toEqual([newer]);
      expect((await listed(userId, now + TTL_MS + 1)).ids).toEqual([]);
    });

    it('lists nothing a refused write would have changed', async () => {
      const now = Date.now();
      const { sessionId, userId } = await runningSession(store, now);
      const [idle] = (await idleSessions(userId, now + 1, 1)) as [string];
      // The id is taken: the would-be owner gets no entry.
      const other = unique('owner');
      expect(
        await codeOf(
          store.createSession({ sessionId, app: APP, userId: other, createdAt: now + 5 }),
        ),
      ).toBe('SESSION_EXISTS');
      expect((await listed(other, now)).ids).toEqual([]);
      // A run refused while another holds the session does not move it up.
      expect(
        await codeOf(
          store.apply(sessionId, beginRunTransition, [
            newRun(sessionId, userId, now + 9),
            lease(now + 9),
          ]),
        ),
      ).toBe('SESSION_BUSY');
      expect((await listed(userId, now)).ids).toEqual([idle, sessionId]);
    });
  });

  it('pages the audit log', async () => {
    const now = Date.now();
    const { sessionId } = await pausedSession(store, 5, now);
    const all = await store.listAudit(sessionId, 0, 100);
    expect(all.map((a) => a.action)).toEqual(['started', ...Array(5).fill('requested')]);
    expect(await peer.listAudit(sessionId, 2, 2)).toEqual(all.slice(2, 4));
    expect(await peer.listAudit(sessionId, 4, 10)).toEqual(all.slice(4));
  });

  /** The session's audit log as exported, checked; and whether the meta's head is its end. */
  async function chainOf(sessionId: string) {
    const lines = (await peer.listAudit(sessionId, 0, 1000)).map(auditLine);
    const head = (await peer.getSnapshot(sessionId))?.meta.auditHead;
    return { lines, check: verifyAuditChain(lines), headIsLast: head === lines.at(-1)?.hash };
  }

  it('chains the audit log of a session across its transitions, from who started the run', async () => {
    const now = Date.now();
    const idle = unique('session');
    await store.createSession({ sessionId: idle, app: APP, userId: 'ann', createdAt: now });
    expect((await peer.getSnapshot(idle))?.meta.auditHead).toBe(AUDIT_GENESIS);

    const { sessionId, run, pause } = await pausedSession(store, 2, now);
    const [first, second] = pause.approvals.map((a) => a.approvalId) as [string, string];
    await peer.apply(sessionId, decideTransition, [
      { decisions: [{ ...decision(first, now + 1), payload: { item: 'Banana' } }] },
      now + 1,
      lease(now),
      DECIDER,
    ]);
    const held = lease(now);
    await store.apply(sessionId, decideTransition, [
      { decisions: [decision(second, now + 2)] },
      now + 2,
      held,
      DECIDER,
    ]);
    await peer.apply(run.sessionId, finishRunTransition, [
      segmentEnd(run, held, now + 3),
      {
        status: 'completed',
        audit: [
          {
            at: now + 3,
            action: 'completed',
            sessionId,
            invocationId: run.invocationId,
            actor: 'agent',
          },
        ],
      },
    ]);
    await store.apply(sessionId, beginRunTransition, [
      newRun(sessionId, 'bob', now + 4),
      lease(now + 4),
    ]);

    const { lines, check, headIsLast } = await chainOf(sessionId);
    expect(lines.map((l) => l.action)).toEqual([
      'started',
      'requested',
      'requested',
      'decided',
      'decided',
      'resumed',
      'completed',
      'started',
    ]);
    expect(check).toEqual({ ok: true, lines: 8 });
    expect(headIsLast).toBe(true);
    expect(lines[0]).toMatchObject({
      actor: run.userId,
      invocation_id: run.invocationId,
      prev_hash: AUDIT_GENESIS,
    });
    expect(lines[7]).toMatchObject({ actor: 'bob', prev_hash: lines[6]?.hash });
    expect(lines[3]?.payload_hash).toBe(hashJson({ item: 'Banana' }));
    expect(lines[4]).not.toHaveProperty('payload_hash');
  });

  it('keeps one linear chain when two handles write the same session at once', async () => {
    const now = Date.now();
    const { sessionId, pause } = await pausedSession(store, 12, now);
    await Promise.all(
      pause.approvals.map((a, i) =>
        (i % 2 ? peer : store).apply(sessionId, decideTransition, [
          { decisions: [decision(a.approvalId, now + i)] },
          now + i,
          lease(now),
          DECIDER,
        ]),
      ),
    );
    const { lines, check, headIsLast } = await chainOf(sessionId);
    expect(lines.filter((l) => l.action === 'decided')).toHaveLength(12);
    expect(check).toEqual({ ok: true, lines: 1 + 12 + 12 + 1 });
    expect(headIsLast).toBe(true);
  });

  it("keeps each user's memories per source, replaced when the source adds them again", async () => {
    const user = unique('memory-user');
    const fact = (text: string, domain: string) => ({
      content: { role: 'user', parts: [{ text }] },
      author: 'processor',
      timestamp: '2026-11-25T10:00:00.000Z',
      metadata: { domain_id: domain, source_url: 'https://example.com/a' },
    });
    await store.memories.put(APP, user, 'session-a', [fact('Rust has ownership.', 'd-1')]);
    await store.memories.put(APP, user, 'session-b', [fact('Bread needs steam.', 'd-2')]);
    await store.memories.put(APP, unique('someone-else'), 'session-a', [fact('Not yours.', 'd-1')]);
    const texts = async (from: HoldpointStore) =>
      (await from.memories.list(APP, user)).map((m) => m.content.parts?.[0]?.text).sort();
    expect(await peer.memories.list(APP, user)).toEqual(
      expect.arrayContaining([
        fact('Rust has ownership.', 'd-1'),
        fact('Bread needs steam.', 'd-2'),
      ]),
    );
    expect(await texts(peer)).toEqual(['Bread needs steam.', 'Rust has ownership.']);
    await peer.memories.put(APP, user, 'session-a', [fact('Rust has lifetimes.', 'd-1')]);
    expect(await texts(store)).toEqual(['Bread needs steam.', 'Rust has lifetimes.']);
    expect(await store.memories.list('another-app', user)).toEqual([]);
  });

  describe('waiting counts', () => {
    const maria: Principal = { id: 'maria', roles: ['approver'] };
    const jiro: Principal = { id: 'jiro', roles: ['approver'] };
    const twoApprovers: Approvers = {
      owner: false,
      roles: ['approver'],
      users: [],
      quorum: 2,
      requesterMayApprove: false,
    };

    /** A session paused on `approvals` approvals of `tool` (of APP). */
    async function pausedOn(
      tool: string,
      {
        approvals = 1,
        ttlMs = HOUR,
        approvers,
      }: { approvals?: number; ttlMs?: number; approvers?: Approvers } = {},
    ) {
      const now = Date.now();
      const started = await runningSession(store, now);
      const pause = newPause(started.run, approvals, now, ttlMs);
      for (const approval of pause.approvals) {
        approval.toolName = tool;
        if (approvers) approval.approvers = approvers;
      }
      await store.apply(started.sessionId, savePauseTransition, [
        segmentEnd(started.run, started.held, now),
        pause,
        requested(pause),
        now + 2 * ttlMs + HOUR,
      ]);
      const ids = pause.approvals.map((a) => a.approvalId);
      return { sessionId: started.sessionId, pause, ids, now };
    }

    /** The count of `tool`'s waiting approvals as every handle reads it (0: not listed). */
    async function waiting(tool: string): Promise<number> {
      const counts = await Promise.all(
        [store, peer].map(async (on) => {
          const all = await on.countWaiting();
          for (const { count } of all) expect(count).toBeGreaterThanOrEqual(0);
          return all.find((c) => c.app === APP && c.tool === tool)?.count ?? 0;
        }),
      );
      expect(counts[1]).toBe(counts[0]);
      return counts[0] ?? 0;
    }

    function decide(sessionId: string, batch: Decision[], now: number, by = DECIDER) {
      return store.apply(sessionId, decideTransition, [{ decisions: batch }, now, lease(now), by]);
    }

    it('counts approvals from their pause until each is decided, per app and tool', async () => {
      const tool = unique('tool');
      const other = unique('tool');
      const { sessionId, ids, now } = await pausedOn(tool, { approvals: 2 });
      await pausedOn(other);
      expect(await waiting(tool)).toBe(2);
      expect(await waiting(other)).toBe(1);
      expect(
        (await decide(sessionId, [decision(ids[0] as string, now + 1)], now + 1)).outcome,
      ).toBe('pending');
      expect(await waiting(tool)).toBe(1);
      const last = await decide(sessionId, [decision(ids[1] as string, now + 2, false)], now + 2);
      expect(last.outcome).toBe('resumes');
      expect(await waiting(tool)).toBe(0);
      expect(await store.countWaiting()).toContainEqual({ app: APP, tool, count: 0 });
      expect(await waiting(other)).toBe(1);
    });

    it('keeps a quorum approval waiting after one vote, until the second', async () => {
      const tool = unique('tool');
      const { sessionId, ids, now } = await pausedOn(tool, { approvers: twoApprovers });
      const approvalId = ids[0] as string;
      await decide(sessionId, [vote(approvalId, maria, now + 1)], now + 1, maria);
      expect(await waiting(tool)).toBe(1);
      await decide(sessionId, [vote(approvalId, jiro, now + 2)], now + 2, jiro);
      expect(await waiting(tool)).toBe(0);
    });

    it('stops counting a pause that expires or is cancelled, and counts nothing for a refusal', async () => {
      const tool = unique('tool');
      const expiring = await pausedOn(tool, { approvals: 2, ttlMs: 1_000 });
      const cancelled = await pausedOn(tool);
      expect(await waiting(tool)).toBe(3);
      const late = expiring.pause.expiresAt;
      expect(await store.apply(expiring.sessionId, expireTransition, [late])).toMatchObject({
        status: 'expired',
      });
      expect(await waiting(tool)).toBe(1);
      expect(
        await codeOf(decide(expiring.sessionId, [decision(expiring.ids[0] as string, late)], late)),
      ).toBe('APPROVAL_EXPIRED');
      await store.apply(cancelled.sessionId, cancelTransition, [
        'bob',
        undefined,
        cancelled.now + 1,
      ]);
      expect(await waiting(tool)).toBe(0);
      expect(
        await codeOf(store.apply(cancelled.sessionId, cancelTransition, ['bob', undefined, late])),
      ).toBe('PAUSE_CANCELLED');
      expect(await waiting(tool)).toBe(0);
    });

    it('never counts below zero, even for approvals that were never counted', async () => {
      const tool = unique('tool');
      const first = await pausedOn(tool);
      const second = await pausedOn(tool);
      await subject.forgetWaiting();
      await decide(
        first.sessionId,
        [decision(first.ids[0] as string, first.now + 1)],
        first.now + 1,
      );
      expect(await waiting(tool)).toBe(0);
      const third = await pausedOn(tool);
      expect(await waiting(tool)).toBe(1);
      await store.apply(second.sessionId, cancelTransition, ['bob', undefined, second.now + 1]);
      expect(await waiting(tool)).toBe(0);
      await decide(
        third.sessionId,
        [decision(third.ids[0] as string, third.now + 1)],
        third.now + 1,
      );
      expect(await waiting(tool)).toBe(0);
      const fourth = await pausedOn(tool);
      expect(await waiting(tool)).toBe(1);
      await store.apply(fourth.sessionId, cancelTransition, ['bob', undefined, fourth.now + 1]);
    });
  });

  describe('outbox', () => {
    let stopPlanning: (() => void)[] = [];
    beforeAll(() => {
      stopPlanning = [store.outbox.planWith(testPlanner), peer.outbox.planWith(testPlanner)];
    });
    afterAll(() => {
      for (const stop of stopPlanning) stop();
    });

    /** The ids of the deliveries the test planner makes for `sessionId`'s approval lines. */
    async function plannedIds(sessionId: string): Promise<string[]> {
      return (await store.listAudit(sessionId, 0, 1000))
        .filter((line) => line.action === 'requested' || line.action === 'decided')
        .map((line) => deliveryIdOf(line.hash ?? '', 'test', 'endpoint:test'));
    }

    it('writes deliveries with the commit that plans them, or not at all', async () => {
      const now = Date.now();
      const approvers = {
        owner: false,
        roles: ['voter'],
        users: [],
        quorum: 5,
        requesterMayApprove: true,
      };
      const { sessionId, approvalId } = await pausedWithApprovers(store, approvers, now);
      const planned: string[] = [];
      const recording: DeliveryPlanner = (before, writes) => {
        const deliveries = testPlanner(before, writes);
        planned.push(...deliveries.map((d) => d.deliveryId));
        return deliveries;
      };
      store.outbox.planWith(recording);
      peer.outbox.planWith(recording);
      const written: string[] = [];
      const stopObserving = store.observeCommits((_before, writes) =>
        written.push(...(writes.deliveries ?? []).map((d) => d.deliveryId)),
      );
      try {
        // Five voters at once: commits that lose the race plan deliveries never stored.
        await Promise.all(
          Array.from({ length: 5 }, (_, i) =>
            (i % 2 ? peer : store).apply(sessionId, decideTransition, [
              { decisions: [vote(approvalId, { id: `voter-${i}`, roles: ['voter'] }, now + 1)] },
              now + 1,
              lease(now),
              { id: `voter-${i}`, roles: ['voter'] },
            ]),
          ),
        );
      } finally {
        store.outbox.planWith(testPlanner);
        peer.outbox.planWith(testPlanner);
        stopObserving();
      }
      const stored = await plannedIds(sessionId);
      expect(stored).toHaveLength(6);
      for (const id of stored) {
        expect(await peer.outbox.get(id)).toMatchObject({
          deliveryId: id,
          status: 'pending',
          attempts: 0,
        });
      }
      for (const id of planned.filter((id) => !stored.includes(id))) {
        expect(await peer.outbox.get(id)).toBeUndefined();
      }
      // Told only of what its own commits stored.
      expect(written.every((id) => stored.includes(id))).toBe(true);
      expect(written.length).toBeGreaterThan(0);
    });

    it('never overwrites a delivery a commit wrote before', async () => {
      const now = Date.now();
      const fixedId = deliveryIdOf(unique('event'), 'test', 'endpoint:test');
      const sameId: DeliveryPlanner = (before, writes) =>
        testPlanner(before, writes).map((d) => ({ ...d, deliveryId: fixedId }));
      store.outbox.planWith(sameId);
      try {
        const { sessionId, pause } = await pausedSession(store, 1, now);
        await store.outbox.claim(fixedId, 'holder', now + 60_000, now);
        await store.outbox.settle(fixedId, 'holder', { status: 'sent', ref: 'first' }, now);
        await store.apply(sessionId, decideTransition, [
          { decisions: [decision(pause.approvals[0]?.approvalId ?? '', now + 1)] },
          now + 1,
          lease(now),
          DECIDER,
        ]);
      } finally {
        store.outbox.planWith(testPlanner);
      }
      expect(await peer.outbox.get(fixedId)).toMatchObject({
        status: 'sent',
        ref: 'first',
        event: { type: 'requested' },
      });
      expect((await peer.outbox.due(now + HOUR, 1000)).map((d) => d.deliveryId)).not.toContain(
        fixedId,
      );
    });

    it('lets exactly one of 20 concurrent claimers take a due delivery', async () => {
      const now = Date.now();
      const { sessionId } = await pausedSession(store, 1, now);
      const [deliveryId] = (await plannedIds(sessionId)) as [string];
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? peer : store).outbox.claim(deliveryId, `worker-${i}`, now + 60_000, now + 1),
        ),
      );
      const won = claims.filter((claim) => claim !== undefined);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ attempts: 1, nextAttemptAt: now + 60_000, status: 'pending' });
      expect(await peer.outbox.get(deliveryId)).toMatchObject({
        attempts: 1,
        claimedBy: won[0]?.claimedBy,
      });
      // Claimed: not due until the claim ends; then it is due again for anyone.
      expect((await store.outbox.due(now + 1, 1000)).map((d) => d.deliveryId)).not.toContain(
        deliveryId,
      );
      expect(
        await store.outbox.claim(deliveryId, 'late', now + 120_000, now + 59_999),
      ).toBeUndefined();
      const again = await peer.outbox.claim(deliveryId, 'late', now + 120_000, now + 60_000);
      expect(again).toMatchObject({ attempts: 2, claimedBy: 'late' });
    });

    it('settles a delivery only for its claim holder', async () => {
      const now = Date.now();
      const { sessionId } = await pausedSession(store, 2, now);
      const [sent, failed] = (await plannedIds(sessionId)) as [string, string];
      await store.outbox.claim(sent, 'holder', now + 60_000, now);
      expect(await peer.outbox.settle(sent, 'intruder', { status: 'sent' }, now + 1)).toBe(false);
      expect(
        await peer.outbox.settle(sent, 'holder', { status: 'sent', ref: 'C1:42' }, now + 1),
      ).toBe(true);
      expect(await store.outbox.settle(sent, 'holder', { status: 'sent' }, now + 2)).toBe(false);
      expect(await store.outbox.get(sent)).toMatchObject({
        status: 'sent',
        ref: 'C1:42',
        sentAt: now + 1,
      });
      expect(await store.outbox.claim(sent, 'again', now + 60_000, now + 2)).toBeUndefined();

      await store.outbox.claim(failed, 'holder', now + 60_000, now);
      const retryAt = now + 5_000;
      expect(
        await peer.outbox.settle(
          failed,
          'holder',
          { status: 'failed', error: 'HTTP 500', retryAt },
          now + 1,
        ),
      ).toBe(true);
      const read = await store.outbox.get(failed);
      expect(read).toMatchObject({
        status: 'failed',
        lastError: 'HTTP 500',
        nextAttemptAt: retryAt,
        attempts: 1,
      });
      expect(read?.claimedBy).toBeUndefined();
      const dueSoon = (await store.outbox.due(retryAt - 1, 1000)).map((d) => d.deliveryId);
      expect(dueSoon).not.toContain(failed);
      const dueThen = (await store.outbox.due(retryAt, 1000)).map((d) => d.deliveryId);
      expect(dueThen).toContain(failed);
      expect(dueThen).not.toContain(sent);
    });

    it('reads only what is due, earliest first', async () => {
      const now = Date.now();
      const early = await pausedSession(store, 1, now - 2_000);
      const later = await pausedSession(store, 1, now - 1_000);
      const future = await pausedSession(store, 1, now + HOUR);
      const [earlyId] = (await plannedIds(early.sessionId)) as [string];
      const [laterId] = (await plannedIds(later.sessionId)) as [string];
      const [futureId] = (await plannedIds(future.sessionId)) as [string];
      const due = (await peer.outbox.due(now, 1000)).map((d) => d.deliveryId);
      expect(due).toContain(earlyId);
      expect(due).toContain(laterId);
      expect(due).not.toContain(futureId);
      expect(due.indexOf(earlyId)).toBeLessThan(due.indexOf(laterId));
      expect(await peer.outbox.due(now, 1)).toHaveLength(1);
      expect((await peer.outbox.due(now + HOUR, 1000)).map((d) => d.deliveryId)).toContain(
        futureId,
      );
    });

    it('re-sends a delivery given up: due now, attempts from zero', async () => {
      const now = Date.now();
      const { sessionId } = await pausedSession(store, 1, now);
      const [deliveryId] = (await plannedIds(sessionId)) as [string];
      await store.outbox.claim(deliveryId, 'holder', now + 60_000, now);
      await store.outbox.settle(
        deliveryId,
        'holder',
        { status: 'gave_up', error: 'HTTP 404' },
        now + 1,
      );
      expect(await peer.outbox.get(deliveryId)).toMatchObject({
        status: 'gave_up',
        lastError: 'HTTP 404',
      });
      expect((await peer.outbox.due(now + HOUR, 1000)).map((d) => d.deliveryId)).not.toContain(
        deliveryId,
      );
      const resent = await peer.outbox.resend(deliveryId, now + 2);
      expect(resent).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: now + 2 });
      expect((await store.outbox.due(now + 2, 1000)).map((d) => d.deliveryId)).toContain(
        deliveryId,
      );
      expect(await store.outbox.resend('dlv_unknown', now)).toBeUndefined();
      expect(await store.outbox.get('dlv_unknown')).toBeUndefined();
    });

    it('lists deliveries newest first, a page at a time, all or by status', async () => {
      // Written "later" than every other test's, so they are the newest.
      const base = Date.now() + 1000 * HOUR;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const { sessionId } = await pausedSession(store, 1, base + i * 1000);
        ids.push(...(await plannedIds(sessionId)));
      }
      const newest = [...ids].reverse();
      const first = await peer.outbox.list({ limit: 2 });
      expect(first.items.map((d) => d.deliveryId)).toEqual(newest.slice(0, 2));
      const second = await peer.outbox.list({ limit: 2, after: first.next });
      expect(second.items.map((d) => d.deliveryId)).toEqual(newest.slice(2, 4));

      const [gaveUp, sent] = [ids[1] as string, ids[3] as string];
      for (const [id, result] of [
        [gaveUp, { status: 'gave_up', error: 'HTTP 410' }],
        [sent, { status: 'sent' }],
      ] as const) {
        await store.outbox.claim(id, 'holder', base + HOUR, base + HOUR);
        await store.outbox.settle(id, 'holder', result, base + HOUR);
      }
      const given = await peer.outbox.list({ status: 'gave_up', limit: 200 });
      expect(given.items.map((d) => d.deliveryId)).toContain(gaveUp);
      expect(given.items.every((d) => d.status === 'gave_up')).toBe(true);
      const pending = await peer.outbox.list({ status: 'pending', limit: 3 });
      expect(pending.items.map((d) => d.deliveryId)).toEqual([ids[4], ids[2], ids[0]]);
    });
  });
});
