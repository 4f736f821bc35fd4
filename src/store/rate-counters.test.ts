import { afterAll, describe, expect, it } from 'vitest';
import type { StoreKind } from '../core/store-kinds.js';
import { MemoryStore } from './memory/memory-store.js';
import type { RateCounters } from './rate-counters.js';
import { RedisScratch, TEST_REDIS_URL } from './redis/redis-scratch.test-support.js';
import { RedisStore } from './redis/redis-store.js';
import { SqlRateCounters } from './sql/sql-rate-counters.js';
import { SqlScratch } from './sql/sql-records.test-support.js';
import { isTested, testedStores } from './tested-stores.test-support.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 22, 12);
const scratch = new RedisScratch();
const sql = { sqlite: new SqlScratch('sqlite'), postgres: new SqlScratch('postgres') };

/** One hit on `key` alone, in the minute from `start`; its count. */
async function hitOnce(
  rates: RateCounters,
  key: string,
  start: number,
): Promise<number | undefined> {
  return (await rates.hit([{ key }], start, MINUTE))[0];
}
afterAll(async () => {
  await Promise.all([scratch.cleanup(), sql.sqlite.cleanup(), sql.postgres.cleanup()]);
});

/** Counters, and a second handle on the same counts (another process for Redis). */
const subjects: {
  kind: StoreKind;
  open: () => Promise<{ rates: RateCounters; peer: RateCounters; close: () => Promise<void> }>;
}[] = [
  {
    kind: 'memory',
    open: async () => {
      const store = new MemoryStore({ sessionTtlSeconds: 600 });
      return { rates: store.rates, peer: store.rates, close: async () => {} };
    },
  },
  {
    kind: 'redis',
    open: async () => {
      const options = { url: TEST_REDIS_URL, keyPrefix: scratch.prefix, sessionTtlSeconds: 600 };
      const [store, peer] = [new RedisStore(options), new RedisStore(options)];
      return {
        rates: store.rates,
        peer: peer.rates,
        close: async () => {
          await Promise.all([store.close(), peer.close()]);
        },
      };
    },
  },
  ...(['sqlite', 'postgres'] as const).map((kind) => ({
    kind,
    // Two drivers on one database: two instances; the scratch closes them.
    open: async () => ({
      rates: new SqlRateCounters(await sql[kind].open()),
      peer: new SqlRateCounters(await sql[kind].open()),
      close: async () => {},
    }),
  })),
];

describe.each(testedStores(subjects))('rate counters: $kind', ({ open }) => {
  it('counts each key in its window, shared by every handle; a new window starts over', async () => {
    const { rates, peer, close } = await open();
    const key = `runs\nann-${Math.random()}`;
    expect(await hitOnce(rates, key, T0)).toBe(1);
    expect(await hitOnce(peer, key, T0)).toBe(2);
    expect(await hitOnce(rates, key, T0)).toBe(3);
    expect(await hitOnce(rates, `${key}-other`, T0)).toBe(1);
    expect(await hitOnce(peer, key, T0 + MINUTE)).toBe(1);
    expect(await hitOnce(rates, key, T0 + MINUTE)).toBe(2);
    await close();
  });

  it('counts several keys in one step and stops after the first past its limit', async () => {
    const { rates, close } = await open();
    const user = `ann-${Math.random()}`;
    const hits = [
      { key: `requests\n${user}`, limit: 2 },
      { key: `runs\n${user}`, limit: 5 },
    ];
    expect(await rates.hit(hits, T0, MINUTE)).toEqual([1, 1]);
    expect(await rates.hit(hits, T0, MINUTE)).toEqual([2, 2]);
    // Past the requests limit: the run is not counted.
    expect(await rates.hit(hits, T0, MINUTE)).toEqual([3]);
    expect(await hitOnce(rates, `runs\n${user}`, T0)).toBe(3);
    await close();
  });
});

describe.skipIf(!isTested('redis'))('rate counters in Redis', () => {
  it('live under the key prefix and expire on their own, a window after the first hit', async () => {
    const store = new RedisStore({
      url: TEST_REDIS_URL,
      keyPrefix: scratch.prefix,
      sessionTtlSeconds: 600,
    });
    await hitOnce(store.rates, 'requests\nexpiring', T0 + 7 * MINUTE);
    await hitOnce(store.rates, 'requests\nexpiring', T0 + 7 * MINUTE);
    const keys = (await scratch.keys()).filter((k) => k.endsWith(`:${T0 + 7 * MINUTE}`));
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^${scratch.prefix}:rate:[0-9a-f]{64}:\\d+$`));
    const ttl = await scratch.redis.pttl(keys[0] as string);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(MINUTE);
    await store.close();
  });

  it('are unavailable while Redis cannot be reached; once that is known, without waiting', async () => {
    const store = new RedisStore({ url: 'redis://127.0.0.1:1', sessionTtlSeconds: 600 });
    const unavailable = { code: 'STORE_UNAVAILABLE' };
    // The first waits for the connection under way, as every operation does.
    await expect(hitOnce(store.rates, 'requests\nann', T0)).rejects.toMatchObject(unavailable);
    const asked = Date.now();
    await expect(hitOnce(store.rates, 'requests\nann', T0)).rejects.toMatchObject(unavailable);
    // Not the two seconds a connection is waited for.
    expect(Date.now() - asked).toBeLessThan(1_000);
    await store.close();
  });
});

describe('rate counters in memory', () => {
  it('forget windows that are over', async () => {
    const store = new MemoryStore({ sessionTtlSeconds: 600 });
    for (let i = 0; i < 100; i++) await hitOnce(store.rates, `requests\nuser-${i}`, T0);
    await hitOnce(store.rates, 'requests\nlater', T0 + MINUTE);
    const held = (store.rates as unknown as { counters: Map<string, unknown> }).counters;
    expect([...held.keys()]).toEqual(['requests\nlater']);
  });
});
