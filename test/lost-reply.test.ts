import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EffectLedger } from '../src/core/effect-ledger.js';
import { HoldpointError } from '../src/core/errors.js';
import { codeOf } from '../src/core/errors.test-support.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import { MemoryStore } from '../src/store/memory/memory-store.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import type { HoldpointStore } from '../src/store/store.js';
import {
  APP,
  lease,
  pausedWithApprovers,
  runningSession,
  segmentEnd,
  vote,
} from '../src/store/store-fixtures.test-support.js';
import { decideTransition, finishRunTransition } from '../src/store/transitions.js';
import { CuttingProxy } from './support/cutting-proxy.js';
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { ann, bob, ops } from './support/principals.js';
import { LEASE_SECONDS, runtimeOn } from './support/runtime-on.js';

// A write whose reply is lost: Redis stored it (or never got it), and the connection
// dropped before the answer came back. The caller must not be told "nothing was
// stored" (503 STORE_UNAVAILABLE) when it was, nor act twice when asked again: it
// learns what became of its write by reading the session again, and a retry of the
// same request (same request id) is answered with the run's state.
const scratch = new RedisScratch();
let proxy: CuttingProxy;
let store: RedisStore;
let calls: HeldCalls;
let runtime: HoldpointRuntime;
let clock: ManualClock;

/** A Redis store that waits this little for a lost write's fate, so the test is quick. */
class QuickToSettle extends RedisStore {
  protected override settleMs = 300;
}

beforeEach(async () => {
  proxy = await CuttingProxy.start(TEST_REDIS_URL);
  store = new QuickToSettle({ url: proxy.url, keyPrefix: scratch.prefix, sessionTtlSeconds: 600 });
  calls = new HeldCalls();
  calls.passThrough = true;
  clock = new ManualClock();
  runtime = runtimeOn(store, heldToolApp(calls), clock);
});
afterEach(async () => {
  await store.close();
  await proxy.close();
});
afterAll(() => scratch.cleanup());

async function paused(): Promise<string> {
  const outcome = await runtime.operations.start({ query: 'pay' }, ann);
  expect(outcome.status).toBe('pending_approval');
  return outcome.sessionId;
}

async function actions(sessionId: string): Promise<string[]> {
  const { entries } = await runtime.operations.audit({ sessionId }, ops);
  return entries.map((e) => e.action);
}

/**
 * `store` as a process sees it whose effect ledger cannot reach the store at `method`:
 * that call fails STORE_UNAVAILABLE, the rest of the ledger (and the store) is its own.
 */
function ledgerFailingAt(store: HoldpointStore, method: 'once' | 'markStarted'): HoldpointStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'effects') {
        const { effects } = store;
        const ledger: EffectLedger = {
          once: (key, effect) => effects.once(key, effect),
          markStarted: (key) => effects.markStarted(key),
          inspect: (key) => effects.inspect(key),
          takeOver: (key) => effects.takeOver(key),
        };
        ledger[method] = async () => {
          throw new HoldpointError('STORE_UNAVAILABLE', 'The store is unavailable: test');
        };
        return ledger;
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('a write whose reply is lost', () => {
  it('is found stored: the decision is answered once, and the run completes', async () => {
    const sessionId = await paused();
    const cut = proxy.cutAfter('"decidedBy":"bob"');
    const outcome = await runtime.operations.resume({ sessionId, approved: true }, bob);
    await cut;
    expect(outcome).toMatchObject({ status: 'completed', result: 'Done: held_payment' });
    expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
    expect(calls.effects).toHaveLength(1);
  });

  it('is found not stored: the decision is written again, once', async () => {
    const sessionId = await paused();
    const cut = proxy.cutBefore('"decidedBy":"bob"');
    const outcome = await runtime.operations.resume({ sessionId, approved: true }, bob);
    await cut;
    expect(outcome).toMatchObject({ status: 'completed' });
    expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
    expect(calls.effects).toHaveLength(1);
  });

  it('of a new session is found stored: the run goes on, no SESSION_EXISTS', async () => {
    const cut = proxy.cutAfter('"query":"hello"');
    const outcome = await runtime.operations.start({ query: 'hello' }, ann);
    await cut;
    expect(outcome).toMatchObject({ status: 'completed', result: 'Echo: hello' });
  });

  it('is OUTCOME_UNKNOWN, naming the run, while the store stays away; the retry gets the run', async () => {
    const sessionId = await paused();
    const { run } = await runtime.operations.getSession(sessionId, ops);
    const cut = proxy.cutAfter('"decidedBy":"bob"');
    proxy.refusing = true;
    const request = { sessionId, approved: true, requestId: 'r-1' };
    const first = await runtime.operations.resume(request, bob).catch((error) => error);
    await cut;
    expect(first).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      details: { session_id: sessionId, invocation_id: run?.invocationId },
    });
    proxy.refusing = false;
    // The decision was stored and took the session for a segment that never ran: the
    // same request learns that instead of ALREADY_DECIDED, and, once the run is
    // recovered, gets its outcome.
    expect(await runtime.operations.resume(request, bob).catch((e) => e)).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      details: { status: 'running' },
    });
    expect(await codeOf(runtime.operations.resume({ ...request, requestId: 'r-2' }, bob))).toBe(
      'ALREADY_DECIDED',
    );
    clock.advance((LEASE_SECONDS + 1) * 1000);
    await runtime.operations.recover({ invocationId: run?.invocationId ?? '' }, ops);
    expect(await runtime.operations.resume(request, bob)).toMatchObject({
      status: 'completed',
      invocationId: run?.invocationId,
    });
    expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
    expect(calls.effects).toHaveLength(1);
  });

  it('is OUTCOME_UNKNOWN while the store stays away; when it was not stored the retry acts', async () => {
    const sessionId = await paused();
    const cut = proxy.cutBefore('"decidedBy":"bob"');
    proxy.refusing = true;
    const request = { sessionId, approved: true, requestId: 'r-1' };
    expect(await codeOf(runtime.operations.resume(request, bob))).toBe('OUTCOME_UNKNOWN');
    await cut;
    proxy.refusing = false;
    expect(await runtime.operations.resume(request, bob)).toMatchObject({ status: 'completed' });
    expect(calls.effects).toHaveLength(1);
  });

  it('of a start with a request id is answered with that run when the start is made again', async () => {
    await store.ping();
    const cut = proxy.cutAfter('"query":"pay"');
    proxy.refusing = true;
    const request = { query: 'pay', requestId: 'start-1' };
    const first = await runtime.operations.start(request, ann).catch((error) => error);
    await cut;
    expect(first).toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    proxy.refusing = false;
    const { invocation_id: invocationId, session_id: sessionId } = first.details;
    clock.advance((LEASE_SECONDS + 1) * 1000);
    await runtime.operations.recover({ invocationId }, ops);
    const again = await runtime.operations.start(request, ann);
    expect(again).toMatchObject({ status: 'pending_approval', invocationId, sessionId });
    const { runs } = await runtime.operations.listRuns({ status: 'interrupted' }, ops);
    expect(runs).toHaveLength(0);
  });

  it('says STORE_UNAVAILABLE only when nothing was sent, and nothing was stored', async () => {
    const sessionId = await paused();
    proxy.refusing = true;
    proxy.dropAll();
    expect(await codeOf(runtime.operations.resume({ sessionId, approved: true }, bob))).toBe(
      'STORE_UNAVAILABLE',
    );
    proxy.refusing = false;
    expect(await runtime.operations.resume({ sessionId, approved: true }, bob)).toMatchObject({
      status: 'completed',
    });
    expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
  });
});

describe('a lost reply followed by another write', () => {
  it('still finds its commit stored among the latest, not refused as a second vote', async () => {
    // Regression: only the latest commit's id was kept, so a vote stored with its reply
    // lost, followed by someone else's, was computed again and refused ALREADY_VOTED.
    class PatientStore extends RedisStore {
      protected override settleMs = 10_000;
    }
    const patient = new PatientStore({
      url: proxy.url,
      keyPrefix: scratch.prefix,
      sessionTtlSeconds: 600,
    });
    const direct = new RedisStore({
      url: TEST_REDIS_URL,
      keyPrefix: scratch.prefix,
      sessionTtlSeconds: 600,
    });
    try {
      const now = Date.now();
      const approvers = {
        owner: false,
        roles: ['approver'],
        users: [],
        quorum: 2,
        requesterMayApprove: false,
      };
      const { sessionId, approvalId } = await pausedWithApprovers(patient, approvers, now);
      const maria = { id: 'maria', roles: ['approver'] };
      const jiro = { id: 'jiro', roles: ['approver'] };
      const cut = proxy.cutAfter('"decidedBy":"maria"');
      proxy.refusing = true;
      const hers = patient.apply(sessionId, decideTransition, [
        { decisions: [vote(approvalId, maria, now)] },
        now,
        lease(now),
        maria,
      ]);
      await cut;
      // Jiro's vote lands (on another connection) while hers waits to learn its fate.
      const his = await direct.apply(sessionId, decideTransition, [
        { decisions: [vote(approvalId, jiro, now + 1)] },
        now + 1,
        lease(now),
        jiro,
      ]);
      expect(his.outcome).toBe('resumes');
      proxy.refusing = false;
      expect((await hers).outcome).toBe('pending');
      const stored = await direct.getSnapshot(sessionId);
      expect(stored?.pause?.decisions.map((d) => d.decidedBy)).toEqual(['maria', 'jiro']);
    } finally {
      await Promise.all([patient.close(), direct.close()]);
    }
  });
});

describe('the work that follows a commit whose reply was lost', () => {
  it('is done once the commit is found stored: the user state it changed is kept', async () => {
    // Regression: a commit settled as stored skipped what follows a commit (the
    // `user:` state, kept outside the session's slot; the indexes).
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const cut = proxy.cutAfter('"status":"completed"');
    await store.apply(run.sessionId, finishRunTransition, [
      segmentEnd(run, held, now, { events: [], state: { 'user:colour': 'blue' } }),
      { status: 'completed', result: 'ok', audit: [] },
    ]);
    await cut;
    const session = await store.loadSession(sessionId, APP, userId);
    expect(session?.state['user:colour']).toBe('blue');
  });
});

describe("a tool's effect ledger when the store fails", () => {
  it('finds a lock whose reply was lost its own: the effect runs once, and the tool answers', async () => {
    runtime = runtimeOn(store, heldToolApp(calls, true), clock);
    const sessionId = await paused();
    const cut = proxy.cutAfter('{"claim":');
    const outcome = await runtime.operations.resume({ sessionId, approved: true }, bob);
    await cut;
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(calls.effects).toHaveLength(1);
    const session = await store.loadSession(sessionId, 'held', 'ann');
    const responses = (session?.events ?? []).flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) =>
        p.functionResponse?.name === 'held_payment' ? [p.functionResponse.response] : [],
      ),
    );
    // The stand-in while it waited for the person, then the effect's own answer.
    expect(responses.at(-1)).toEqual({ status: 'done', tool: 'held_payment' });
  });

  it('stops the run instead of handing the model the outage as the tool’s answer', async () => {
    const memory = new MemoryStore({ sessionTtlSeconds: 600 });
    const failing = ledgerFailingAt(memory, 'once');
    const a = runtimeOn(failing, heldToolApp(calls, true), clock);
    const { sessionId, invocationId } = await a.operations.start({ query: 'pay' }, ann);
    const answer = await a.operations.resume({ sessionId, approved: true }, bob).catch((e) => e);
    expect(answer).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      details: { invocation_id: invocationId },
    });
    const stored = await memory.loadSession(sessionId, 'held', 'ann');
    // Nothing of the stopped segment is stored: the outage reached no model as an answer.
    expect(JSON.stringify(stored?.events)).not.toContain('The store is unavailable: test');
    // Recovered, the approved call that may have started is put to a person again.
    clock.advance((LEASE_SECONDS + 1) * 1000);
    const b = runtimeOn(memory, heldToolApp(calls, true), clock);
    const recovered = await b.operations.recover({ invocationId }, ops);
    expect(recovered).toMatchObject({ status: 'pending_approval' });
    expect(recovered.status === 'pending_approval' && recovered.approvals[0]?.mayHaveRun).toBe(
      true,
    );
    expect(calls.effects).toHaveLength(0);
  });

  it('stops before the tool when its started mark cannot be stored; recovered, it runs without asking again', async () => {
    const memory = new MemoryStore({ sessionTtlSeconds: 600 });
    const failing = ledgerFailingAt(memory, 'markStarted');
    const a = runtimeOn(failing, heldToolApp(calls, true), clock);
    const { sessionId, invocationId } = await a.operations.start({ query: 'pay' }, ann);
    expect(await codeOf(a.operations.resume({ sessionId, approved: true }, bob))).toBe(
      'OUTCOME_UNKNOWN',
    );
    // The tool never ran: nothing may run unmarked.
    expect(calls.effects).toHaveLength(0);
    clock.advance((LEASE_SECONDS + 1) * 1000);
    const b = runtimeOn(memory, heldToolApp(calls, true), clock);
    expect(await b.operations.recover({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: 'Done: held_payment',
    });
    expect(calls.effects).toHaveLength(1);
  });
});

describe('a retry of a request whose outcome was unknown', () => {
  const onEnd: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(onEnd.splice(0).map((end) => end()));
  });

  it.each(['memory', 'redis'])(
    'answers a retry with the same Idempotency-Key with the run as it is now: asked again, then completed (%s)',
    async (kind) => {
      const base =
        kind === 'memory'
          ? new MemoryStore({ sessionTtlSeconds: 600 })
          : new RedisStore({
              url: TEST_REDIS_URL,
              keyPrefix: scratch.prefix,
              sessionTtlSeconds: 600,
            });
      onEnd.push(() => base.close());
      const failing = ledgerFailingAt(base, 'once');
      const a = runtimeOn(failing, heldToolApp(calls, true), clock);
      const { sessionId, invocationId } = await a.operations.start({ query: 'pay' }, ann);
      /** Bob's decision, sent with Idempotency-Key `k-1` (as POST /api/agent/resume does). */
      const decide = (runtime: HoldpointRuntime) =>
        runtime.idempotent(
          { operation: 'resume', caller: 'bob', key: 'k-1', fingerprint: 'approve' },
          (requestId) => runtime.operations.resume({ sessionId, approved: true, requestId }, bob),
        );
      expect(await codeOf(decide(a))).toBe('OUTCOME_UNKNOWN');
      // Recovered, the approved call whose tool was entered is put to a person again.
      clock.advance((LEASE_SECONDS + 1) * 1000);
      const b = runtimeOn(base, heldToolApp(calls, true), clock);
      const asked = await b.operations.recover({ invocationId }, ops);
      if (asked.status !== 'pending_approval') throw new Error('not asked again');
      const [again] = asked.approvals;
      expect(again?.mayHaveRun).toBe(true);
      // The retry learns the question is asked anew (it never answers it) ...
      expect(await decide(b)).toMatchObject({
        status: 'pending_approval',
        approvals: [{ approvalId: again?.approvalId, mayHaveRun: true }],
      });
      const decided = await b.operations.decideApproval(
        { approvalId: again?.approvalId ?? '', approved: true },
        bob,
      );
      expect(decided).toMatchObject({ status: 'completed' });
      // ... and, once the run completed, that it did: not the question it saw before.
      expect(await decide(b)).toMatchObject({
        status: 'completed',
        invocationId,
        result: 'Done: held_payment',
      });
      expect(calls.effects).toHaveLength(1);
    },
  );
});
