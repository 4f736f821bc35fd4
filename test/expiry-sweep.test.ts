import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import type { HoldpointStore } from '../src/store/store.js';
import { holdNextAnswer } from './support/held-answers.js';
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { as, ops } from './support/principals.js';

const scratch = new RedisScratch();
const opened: RedisStore[] = [];
const stops: (() => void)[] = [];
const SWEEP_SECONDS = 5;

afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(() => scratch.cleanup());

/** A store that counts how often the due pauses are read through it. */
function counted(store: HoldpointStore): { store: HoldpointStore; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (property === 'listDuePauses') {
        return (...args: Parameters<HoldpointStore['listDuePauses']>) => {
          reads += 1;
          return target.listDuePauses(...args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: proxy, reads: () => reads };
}

/** An instance: a runtime on its own connection to the shared Redis, sweeping by `clock`. */
function instance(clock: ManualClock, wrap = (store: HoldpointStore) => store) {
  const redis = new RedisStore({
    url: TEST_REDIS_URL,
    keyPrefix: scratch.prefix,
    sessionTtlSeconds: 600,
  });
  opened.push(redis);
  const app = heldToolApp(new HeldCalls());
  const runtime = new HoldpointRuntime({
    store: wrap(redis),
    apps: new Map([[app.name, app]]),
    defaultApp: app.name,
    pauseTtlSeconds: 60,
    retentionSeconds: 600,
    logger: pino({ level: 'silent' }),
    clock,
  });
  stops.push(runtime.startSweeper(SWEEP_SECONDS));
  return runtime;
}

describe('the expiry sweep', () => {
  it('runs on one instance at a time, and records what is due', async () => {
    const clockA = new ManualClock(Date.now());
    const clockB = new ManualClock(clockA.now());
    const a = counted(
      new RedisStore({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix, sessionTtlSeconds: 600 }),
    );
    const b = counted(
      new RedisStore({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix, sessionTtlSeconds: 600 }),
    );
    const runtimeA = instance(clockA, () => a.store);
    instance(clockB, () => b.store);
    const paused = await runtimeA.start({ query: 'pay' }, as('sweep-owner', 'admin'));

    clockA.advance(SWEEP_SECONDS * 1000);
    await expect.poll(a.reads).toBe(1);
    clockB.advance(SWEEP_SECONDS * 1000);
    // B's beat finds the sweep taken: it reads nothing.
    clockB.advance(SWEEP_SECONDS * 1000);
    clockA.advance(60_000);
    await expect
      .poll(async () =>
        (await runtimeA.audit({ sessionId: paused.sessionId }, ops)).entries.map((e) => e.action),
      )
      .toEqual(['started', 'requested', 'expired']);
    expect(b.reads()).toBe(0);
  });

  it('never starts a beat while the previous sweep still runs', async () => {
    const clock = new ManualClock(Date.now());
    const redis = new RedisStore({
      url: TEST_REDIS_URL,
      keyPrefix: `${scratch.prefix}-solo`,
      sessionTtlSeconds: 600,
    });
    opened.push(redis);
    const held = holdNextAnswer(redis, 'listDuePauses');
    const reads = counted(held.store);
    instance(clock, () => reads.store);
    clock.advance(SWEEP_SECONDS * 1000);
    await held.held.made;
    clock.advance(3 * SWEEP_SECONDS * 1000);
    expect(reads.reads()).toBe(1);
    // Once it has finished, the next beat sweeps again.
    held.held.release();
    await expect
      .poll(() => {
        clock.advance(SWEEP_SECONDS * 1000);
        return reads.reads();
      })
      .toBe(2);
  });
});
