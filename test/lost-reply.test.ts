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
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { lostReplySuite } from './support/lost-reply-suite.js';
import { ann, bob, ops } from './support/principals.js';
import { LEASE_SECONDS, runtimeOn } from './support/runtime-on.js';

// A write whose reply is lost, on Redis: it stored the write (or never got it), and the
// connection dropped before the answer came back (test/support/lost-reply-suite.ts).
// Then what a tool's effect ledger does when the store fails, and a retry of a request
// whose outcome was unknown.
const scratch = new RedisScratch();
afterAll(() => scratch.cleanup());

lostReplySuite({
  ready: async () => TEST_REDIS_URL,
  store: (url, settleMs) => {
    const options = { url, keyPrefix: scratch.prefix, sessionTtlSeconds: 600 };
    class Settling extends RedisStore {
      protected override settleMs = settleMs;
    }
    return new Settling(options);
  },
  marker: (json) => [json],
  ledgerLock: '{"claim":',
});

let calls: HeldCalls;
let clock: ManualClock;
beforeEach(() => {
  calls = new HeldCalls();
  calls.passThrough = true;
  clock = new ManualClock();
});

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

describe("a tool's effect ledger when the store fails", () => {
  it('stops the run instead of handing the model the outage as the tool’s answer', async () => {
    const memory = new MemoryStore({ sessionTtlSeconds: 600 });
    const failing = ledgerFailingAt(memory, 'once');
    const a = runtimeOn(failing, heldToolApp(calls, true), clock);
    const { sessionId, invocationId } = await a.operations.startRun({ query: 'pay' }, ann);
    const answer = await a.operations.resumeRun({ sessionId, approved: true }, bob).catch((e) => e);
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
    const recovered = await b.operations.recoverRun({ invocationId }, ops);
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
    const { sessionId, invocationId } = await a.operations.startRun({ query: 'pay' }, ann);
    expect(await codeOf(a.operations.resumeRun({ sessionId, approved: true }, bob))).toBe(
      'OUTCOME_UNKNOWN',
    );
    // The tool never ran: nothing may run unmarked.
    expect(calls.effects).toHaveLength(0);
    clock.advance((LEASE_SECONDS + 1) * 1000);
    const b = runtimeOn(memory, heldToolApp(calls, true), clock);
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
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
      const { sessionId, invocationId } = await a.operations.startRun({ query: 'pay' }, ann);
      /** Bob's decision, sent with Idempotency-Key `k-1` (as POST /api/agent/resume does). */
      const decide = (runtime: HoldpointRuntime) =>
        runtime.idempotent(
          { operation: 'resume', caller: 'bob', key: 'k-1', fingerprint: 'approve' },
          (requestId) =>
            runtime.operations.resumeRun({ sessionId, approved: true, requestId }, bob),
        );
      expect(await codeOf(decide(a))).toBe('OUTCOME_UNKNOWN');
      // Recovered, the approved call whose tool was entered is put to a person again.
      clock.advance((LEASE_SECONDS + 1) * 1000);
      const b = runtimeOn(base, heldToolApp(calls, true), clock);
      const asked = await b.operations.recoverRun({ invocationId }, ops);
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
