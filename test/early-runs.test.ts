import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApps, DEFAULT_APP } from '../src/agents/app-registry.js';
import { RulesModel } from '../src/agents/rules-model.js';
import type { EffectLedger } from '../src/core/effect-ledger.js';
import { codeOf } from '../src/core/errors.test-support.js';
import type { RunEvent } from '../src/runtime/run-event.js';
import { HoldpointRuntime } from '../src/runtime/runtime.js';
import { RedisStore } from '../src/store/redis-store.js';
import { TestRedis } from './support/redis-server.js';

// A private redis-server: this file makes it refuse writes and stall, which nobody
// else may see.
let redis: TestRedis;
let store: RedisStore;
let admin: Redis;

beforeAll(async () => {
  redis = await TestRedis.start();
  store = await openStore();
  admin = new Redis(redis.url);
});

afterAll(async () => {
  await store.close();
  admin.disconnect();
  await redis.stop();
});

function openStore(): Promise<RedisStore> {
  return RedisStore.connect({ url: redis.url, keyPrefix: 'early', sessionTtlSeconds: 600 });
}

/** A runtime on `on` whose tools report in `reached` the moment they reach their effect. */
function runtimeOn(on: RedisStore, reached: string[]): HoldpointRuntime {
  const effects: EffectLedger = {
    once: (key, effect) => {
      reached.push(key);
      return on.effects.once(key, effect);
    },
  };
  return new HoldpointRuntime({
    store: on,
    apps: createApps({ model: 'rules', imageThreshold: 1, effects }),
    defaultApp: DEFAULT_APP,
    pauseTtlSeconds: 3600,
    retentionSeconds: 600,
    logger: pino({ level: 'silent' }),
  });
}

/** Waits until `count` processes listen for shared-state changes, so they keep what they read. */
async function listening(count: number): Promise<void> {
  await expect
    .poll(async () => (await admin.pubsub('NUMSUB', 'early:shared-state-changed'))[1])
    .toBe(count);
}

/** Keeps Redis busy for `ms`, so every command sent meanwhile waits for its answer. */
function stallRedis(ms: number): Promise<unknown> {
  return admin.eval(
    "local t = redis.call('TIME'); local stop = t[1] * 1e6 + t[2] + ARGV[1] * 1000 " +
      "repeat t = redis.call('TIME') until t[1] * 1e6 + t[2] >= stop return 1",
    0,
    ms,
  );
}

describe("a new session's first run on Redis", () => {
  it('runs no tool for a session Redis refused to store', async () => {
    // Tools report here the moment they reach their effect.
    const reached: string[] = [];
    const runtime = runtimeOn(store, reached);
    const oneImage = () =>
      runtime.start({ query: 'Generate 1 image', userId: 'ana', app: 'image-studio' });

    expect((await oneImage()).status).toBe('completed');
    // Once the store listens for shared-state changes, what it read is kept, and the
    // next run of the user starts before Redis has confirmed its session.
    await listening(1);
    expect((await oneImage()).status).toBe('completed');
    const before = reached.length;

    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    const calls = vi.spyOn(RulesModel.prototype, 'generateContentAsync');
    try {
      expect(await codeOf(oneImage())).toBe('INTERNAL');
      expect(reached).toHaveLength(before);
      // The run stops at its first held call, instead of asking the model again and again.
      expect(calls).toHaveBeenCalledTimes(1);
    } finally {
      calls.mockRestore();
      await admin.config('SET', 'maxmemory', '0');
    }
    expect((await oneImage()).status).toBe('completed');
    expect(reached).toHaveLength(before + 1);
  });
});

describe('a resumed run on an early claim', () => {
  // Process B keeps a copy of a paused session; process A then decides its pause.
  // B's decision, computed on its stale copy, is claimed early and loses to A's.
  async function staleCopyInB(app: string, query: string) {
    const peer = await openStore();
    const reachedB: string[] = [];
    const a = runtimeOn(store, []);
    const b = runtimeOn(peer, reachedB);
    const paused = await a.start({ query, userId: 'lee', app });
    if (paused.status !== 'pending_approval') throw new Error(`start ${paused.status}`);
    // Once B listens for shared-state changes, its copy of the session is complete.
    await b.history(paused.sessionId);
    await listening(2);
    await b.history(paused.sessionId);
    const decision = { approvalId: paused.approvals[0]?.approvalId ?? '', approved: true };
    await a.resume({
      sessionId: paused.sessionId,
      decidedBy: 'ana',
      decisions: [{ ...decision, payload: { item: 'Banana' } }],
    });
    return { peer, b, reachedB, sessionId: paused.sessionId, decision };
  }

  it('runs no tool and emits nothing when the claim does not hold', async () => {
    const { peer, b, reachedB, sessionId } = await staleCopyInB(
      'image-studio',
      'Generate 3 images',
    );
    const events: RunEvent[] = [];
    try {
      // While Redis stalls, B's run reaches its tool long before the claim is answered.
      const stalled = stallRedis(300);
      const resumed = b.resume({ sessionId, decidedBy: 'bob', approved: true }, (event) =>
        events.push(event),
      );
      expect(await codeOf(resumed)).toBe('ALREADY_DECIDED');
      await stalled;
      expect(reachedB).toEqual([]);
      expect(events).toEqual([]);

      // Nothing the stopped run appended is ever written: B's next run stores only its own.
      const next = await b.start({ sessionId, query: 'Generate 1 image', userId: 'lee' });
      expect(next.status).toBe('completed');
      const session = await store.sessions.getSession({
        appName: 'image-studio',
        userId: 'lee',
        sessionId,
      });
      const answers = (session?.events ?? [])
        .flatMap((event) => event.content?.parts ?? [])
        .filter((part) => part.functionResponse?.name === 'adk_request_confirmation');
      expect(answers).toHaveLength(1);
      expect(JSON.stringify(session?.events)).not.toContain('The run stopped before this call');
    } finally {
      await peer.close();
    }
  });

  it('resumes once when one process gets the same decision twice at once', async () => {
    const reached: string[] = [];
    const runtime = runtimeOn(store, reached);
    const paused = await runtime.start({
      query: 'Generate 2 images',
      userId: 'kim',
      app: 'image-studio',
    });
    // This process keeps the paused session and the user's shared state: both decisions
    // are claimed early, from the same copy.
    await runtime.history(paused.sessionId);
    const approve = () =>
      runtime.resume({ sessionId: paused.sessionId, decidedBy: 'kim', approved: true });
    const results = await Promise.allSettled([approve(), approve()]);

    const completed = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.status] : []));
    expect(completed).toEqual(['completed']);
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(await codeOf(Promise.reject(refused[0]))).toBe('ALREADY_DECIDED');
    expect(reached).toHaveLength(1);
    // The winner's run is stored whole, and nothing of the loser's.
    const reader = await openStore();
    const session = await reader.sessions.getSession({
      appName: 'image-studio',
      userId: 'kim',
      sessionId: paused.sessionId,
    });
    await reader.close();
    const responses = (session?.events ?? [])
      .flatMap((event) => event.content?.parts ?? [])
      .flatMap((part) => (part.functionResponse ? [part.functionResponse.name] : []));
    expect(responses).toEqual(['adk_request_confirmation', 'request_image_generation']);
  });

  it('calls no model when the claim does not hold', async () => {
    // A picked already, so the session waits on its next question.
    const { peer, b, sessionId, decision } = await staleCopyInB('picker', 'Pick a fruit');
    const calls = vi.spyOn(RulesModel.prototype, 'generateContentAsync');
    try {
      // An answer to a long-running tool resumes straight into the model.
      const stalled = stallRedis(300);
      const resumed = b.resume({
        sessionId,
        decidedBy: 'bob',
        decisions: [{ ...decision, payload: { item: 'Cherry' } }],
      });
      expect(await codeOf(resumed)).toBe('APPROVAL_NOT_FOUND');
      await stalled;
      expect(calls).not.toHaveBeenCalled();
    } finally {
      calls.mockRestore();
      await peer.close();
    }
  });
});
