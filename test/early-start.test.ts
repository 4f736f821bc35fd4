import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApps, DEFAULT_APP } from '../src/agents/app-registry.js';
import type { EffectLedger } from '../src/core/effect-ledger.js';
import { codeOf } from '../src/core/errors.test-support.js';
import { HoldpointRuntime } from '../src/runtime/runtime.js';
import { RedisStore } from '../src/store/redis-store.js';
import { TestRedis } from './support/redis-server.js';

// A private redis-server: this file makes it refuse writes, which nobody else may see.
let redis: TestRedis;
let store: RedisStore;
let admin: Redis;

beforeAll(async () => {
  redis = await TestRedis.start();
  store = await RedisStore.connect({ url: redis.url, keyPrefix: 'early', sessionTtlSeconds: 600 });
  admin = new Redis(redis.url);
});

afterAll(async () => {
  await store.close();
  admin.disconnect();
  await redis.stop();
});

describe("a new session's first run on Redis", () => {
  it('runs no tool for a session Redis refused to store', async () => {
    // Tools report here the moment they reach their effect.
    const reached: string[] = [];
    const effects: EffectLedger = {
      once: (key, effect) => {
        reached.push(key);
        return store.effects.once(key, effect);
      },
    };
    const runtime = new HoldpointRuntime({
      store,
      apps: createApps({ model: 'rules', imageThreshold: 1, effects }),
      defaultApp: DEFAULT_APP,
      pauseTtlSeconds: 3600,
      retentionSeconds: 600,
      logger: pino({ level: 'silent' }),
    });
    const oneImage = () =>
      runtime.start({ query: 'Generate 1 image', userId: 'ana', app: 'image-studio' });

    expect((await oneImage()).status).toBe('completed');
    // Once the store listens for shared-state changes, what it read is kept, and the
    // next run of the user starts before Redis has confirmed its session.
    await expect
      .poll(async () => (await admin.pubsub('NUMSUB', 'early:shared-state-changed'))[1])
      .toBe(1);
    expect((await oneImage()).status).toBe('completed');
    const before = reached.length;

    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    try {
      expect(await codeOf(oneImage())).toBe('INTERNAL');
      expect(reached).toHaveLength(before);
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    expect((await oneImage()).status).toBe('completed');
    expect(reached).toHaveLength(before + 1);
  });
});
