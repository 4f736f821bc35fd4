import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { HoldpointError } from '../src/core/errors.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { optionSettingValues } from '../src/core/settings/setting-options.js';
import { PURGE_PER_BEAT } from '../src/runtime/expiry/expiry-sweeper.js';
import { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import { MemoryStore } from '../src/store/memory/memory-store.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { HoldpointStore } from '../src/store/store.js';
import { holdNextAnswer } from './support/held-answers.js';
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { as, ops } from './support/principals.js';
import { testRuntimeOptions } from './support/runtime-on.js';

const scratch = new RedisScratch();
const opened: HoldpointStore[] = [];
const dirs: string[] = [];
const stops: (() => void)[] = [];
const SWEEP_SECONDS = 5;

afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await Promise.all(opened.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
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
    settings: optionSettingValues({ pauseTtlSeconds: 60 }),
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
    const paused = await runtimeA.operations.startRun({ query: 'pay' }, as('sweep-owner', 'admin'));

    clockA.advance(SWEEP_SECONDS * 1000);
    await expect.poll(a.reads).toBe(1);
    clockB.advance(SWEEP_SECONDS * 1000);
    // B's beat finds the sweep taken: it reads nothing.
    clockB.advance(SWEEP_SECONDS * 1000);
    clockA.advance(60_000);
    await expect
      .poll(async () =>
        (await runtimeA.operations.readAudit({ sessionId: paused.sessionId }, ops)).entries.map(
          (e) => e.action,
        ),
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

/**
 * A memory store that records the sweeper's purges (and answers `removed`), and whose
 * sweep turn is held by someone else while `turnTaken`.
 */
function purgeRecorder(removed: number) {
  const calls: [number, number][] = [];
  const state = { turnTaken: false, turnsAsked: 0 };
  const store = new Proxy(new MemoryStore({ sessionTtlSeconds: 600 }), {
    get(target, property) {
      if (property === 'purgeExpired') {
        return async (now: number, limit: number) => {
          calls.push([now, limit]);
          return removed;
        };
      }
      if (property === 'takeSweepTurn') {
        return async () => {
          state.turnsAsked += 1;
          return !state.turnTaken;
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, calls, state };
}

describe('the purge of what outlived its retention', () => {
  it('asks the store to purge, as of the beat and a bounded number, each beat it holds the turn', async () => {
    const clock = new ManualClock(Date.now());
    const recorder = purgeRecorder(3);
    const runtime = new HoldpointRuntime({
      ...testRuntimeOptions(recorder.store, heldToolApp(new HeldCalls())),
      clock,
    });
    stops.push(runtime.startSweeper(SWEEP_SECONDS));
    clock.advance(SWEEP_SECONDS * 1000);
    const firstBeat = clock.now();
    await expect.poll(() => recorder.calls.length).toBe(1);
    expect(recorder.calls).toEqual([[firstBeat, PURGE_PER_BEAT]]);
    expect(PURGE_PER_BEAT).toBe(500);

    // Another instance holds the turn: this one purges nothing.
    recorder.state.turnTaken = true;
    clock.advance(SWEEP_SECONDS * 1000);
    await expect.poll(() => recorder.state.turnsAsked).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(recorder.calls.length).toBe(1);
    recorder.state.turnTaken = false;
    clock.advance(SWEEP_SECONDS * 1000);
    await expect.poll(() => recorder.calls.length).toBe(2);
    expect(recorder.calls[1]).toEqual([firstBeat + 2 * SWEEP_SECONDS * 1000, PURGE_PER_BEAT]);
  });

  it('on the memory store, purges nothing (sessions expire by themselves) and the sweep goes on', async () => {
    const clock = new ManualClock(Date.now());
    const store = new MemoryStore({ sessionTtlSeconds: 600 });
    const purges = vi.spyOn(store, 'purgeExpired');
    const runtime = new HoldpointRuntime({
      ...testRuntimeOptions(store, heldToolApp(new HeldCalls())),
      settings: optionSettingValues({ pauseTtlSeconds: 60 }),
      clock,
    });
    stops.push(runtime.startSweeper(SWEEP_SECONDS));
    const paused = await runtime.operations.startRun({ query: 'pay' }, as('purge-owner', 'admin'));
    clock.advance(60_000 + SWEEP_SECONDS * 1000);
    await expect
      .poll(async () =>
        (await runtime.operations.readAudit({ sessionId: paused.sessionId }, ops)).entries.map(
          (e) => e.action,
        ),
      )
      .toEqual(['started', 'requested', 'expired']);
    await expect.poll(() => purges.mock.calls.length).toBeGreaterThan(0);
    // The memory store's purge declares no parameters: the sweeper's arguments are still there.
    expect((purges.mock.calls[0] as unknown[] | undefined)?.[1]).toBe(PURGE_PER_BEAT);
    expect(await purges.mock.results[0]?.value).toBe(0);
  });

  it('on a SQLite store, removes a finished session once its retention ends: listed before, gone after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-'));
    const store = new SqliteStore({ dataDir: dir, sessionTtlSeconds: 600 });
    dirs.push(dir);
    opened.push(store);
    const clock = new ManualClock(Date.now());
    const runtime = new HoldpointRuntime({
      ...testRuntimeOptions(store, heldToolApp(new HeldCalls())),
      settings: optionSettingValues({ pauseTtlSeconds: 60 }),
      clock,
    });
    stops.push(runtime.startSweeper(SWEEP_SECONDS));
    const owner = as('retention-owner', 'admin');
    const paused = await runtime.operations.startRun({ query: 'pay' }, owner);
    // The pause expires: the session is finished, and still kept and listed.
    clock.advance(60_000 + SWEEP_SECONDS * 1000);
    await expect
      .poll(async () =>
        (await runtime.operations.readAudit({ sessionId: paused.sessionId }, ops)).entries.map(
          (e) => e.action,
        ),
      )
      .toEqual(['started', 'requested', 'expired']);
    const listed = await runtime.operations.listSessions({}, owner);
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([paused.sessionId]);
    expect((await store.stats()).sessions).toBe(1);

    // Past its retention (the store's 10 minutes, and the pause's), a beat removes it.
    clock.advance(2 * 3_600_000);
    await expect.poll(async () => (await store.stats()).sessions).toBe(0);
    expect(await store.getSnapshot(paused.sessionId)).toBeUndefined();
    expect(await store.findRun(paused.invocationId)).toBeUndefined();
  });
});

describe('a sweep while the store is away', () => {
  it('is said in one line per beat, with the code and why, not a stack', async () => {
    const clock = new ManualClock(Date.now());
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const away = new Proxy(new MemoryStore({ sessionTtlSeconds: 600 }), {
      get(target, property) {
        if (property === 'takeSweepTurn') {
          return async () => {
            throw new HoldpointError(
              'STORE_UNAVAILABLE',
              'PostgreSQL cannot be reached: no database',
            );
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const runtime = new HoldpointRuntime({
      ...testRuntimeOptions(away, heldToolApp(new HeldCalls())),
      logger,
      clock,
    });
    stops.push(runtime.startSweeper(SWEEP_SECONDS));
    clock.advance(SWEEP_SECONDS * 1000);
    await expect.poll(() => lines.length).toBe(1);
    expect(lines[0]).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      msg: 'sweep skipped: PostgreSQL cannot be reached: no database',
    });
    expect(lines[0]).not.toHaveProperty('err');
  });
});
