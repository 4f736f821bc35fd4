import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { TestRedis } from './support/redis-server.js';
import { testRuntimeOptions } from './support/runtime-on.js';

// `/healthz` is what a load balancer probes: while the store is down it must say so
// within the probe's timeout, not after the store's own connect timeout (2 s).
let redis: TestRedis;
let store: RedisStore;

beforeAll(async () => {
  redis = await TestRedis.start();
  store = await RedisStore.connect({
    url: redis.url,
    keyPrefix: `health-${process.pid}`,
    sessionTtlSeconds: 600,
  });
});
afterAll(async () => {
  await store.close();
  await redis.stop();
});

/** A runtime on the test's Redis whose health check waits `healthTimeoutMs` at most. */
function runtime(healthTimeoutMs?: number): HoldpointRuntime {
  const app = heldToolApp(new HeldCalls());
  return new HoldpointRuntime({ ...testRuntimeOptions(store, app), healthTimeoutMs });
}

describe('the health check', () => {
  it('answers unavailable from its bound while Redis is stopped, and ok once it is back', async () => {
    expect(await runtime(50).health()).toEqual({ status: 'ok', store: 'redis' });
    await redis.down();
    // The store would wait up to its connect timeout for Redis; the check does not.
    expect(await runtime(50).health()).toEqual({
      status: 'unavailable',
      store: 'redis',
      code: 'STORE_UNAVAILABLE',
      reason: 'The store did not answer within 50 ms.',
    });
    await redis.up();
    await expect.poll(async () => (await runtime(50).health()).status).toBe('ok');
  });
});
