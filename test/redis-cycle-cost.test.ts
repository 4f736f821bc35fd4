import { createHoldpoint, type Holdpoint, redisStore } from 'holdpoint';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import imageStudio from '../examples/image-studio/app.js';
import { TestRedis } from './support/redis-server.js';

/**
 * What the bench's cycle (start → pause → approve → complete, `npm run bench`) costs
 * Redis, counted by a redis-server of this file's own: the commands it executes (those
 * its Lua scripts run included, as `INFO commandstats` counts them), and what one paused
 * run keeps. Counts, not times: they are the same on a loaded machine.
 */

/** Most Redis commands one cycle may cost (121 before issue 33, then 74). */
const MOST_COMMANDS_PER_CYCLE = 56;
/** Most bytes of Redis memory one paused run may keep, its index entries included. */
const MOST_BYTES_PER_PAUSED_RUN = 5_000;

const USER = 'bench';
let redis: TestRedis;
let client: Redis;
let holdpoint: Holdpoint;

beforeAll(async () => {
  redis = await TestRedis.start('everysec');
  client = new Redis(redis.url);
  holdpoint = createHoldpoint({
    apps: [imageStudio],
    store: redisStore({ url: redis.url, keyPrefix: 'cost' }),
    // Nothing but the cycles runs: no sweep beats between them.
    sweepIntervalSeconds: false,
  });
});
afterAll(async () => {
  await holdpoint?.close();
  client?.disconnect();
  await redis?.stop();
});

async function startPaused(): Promise<string> {
  const paused = await holdpoint.start({ query: 'Generate 10 images', userId: USER });
  expect(paused.status).toBe('pending_approval');
  return paused.sessionId;
}

async function cycle(): Promise<void> {
  const sessionId = await startPaused();
  const done = await holdpoint.resume({ sessionId, approved: true, decidedBy: USER });
  expect(done.status).toBe('completed');
}

/** Every command Redis executed since its stats were reset, by `INFO commandstats`. */
async function commandsExecuted(): Promise<Record<string, number>> {
  const stats = await client.info('commandstats');
  const calls: Record<string, number> = {};
  for (const [, name, count] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    calls[name as string] = Number(count);
  }
  return calls;
}

/** Redis's `used_memory`. */
async function usedMemory(): Promise<number> {
  const info = await client.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1]);
}

describe('the Redis cost of a cycle', () => {
  it(`executes at most ${MOST_COMMANDS_PER_CYCLE} commands per pause → approve → complete`, async () => {
    // Scripts loaded, the owner's index made: what every cycle shares is not counted.
    for (let i = 0; i < 3; i++) await cycle();
    const cycles = 10;
    await client.config('RESETSTAT');
    for (let i = 0; i < cycles; i++) await cycle();
    const executed = await commandsExecuted();
    // This reading connection's own commands are not the cycle's.
    delete executed.info;
    delete executed['config|resetstat'];
    const total = Object.values(executed).reduce((sum, n) => sum + n, 0);
    expect(total / cycles, JSON.stringify(executed)).toBeLessThanOrEqual(MOST_COMMANDS_PER_CYCLE);
  });

  it(`keeps at most ${MOST_BYTES_PER_PAUSED_RUN} bytes per paused run`, async () => {
    await startPaused();
    const runs = 200;
    const before = await usedMemory();
    for (let i = 0; i < runs; i++) await startPaused();
    const perRun = ((await usedMemory()) - before) / runs;
    expect(perRun).toBeLessThanOrEqual(MOST_BYTES_PER_PAUSED_RUN);
  });
});
