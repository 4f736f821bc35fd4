import { holdpointFromConfig } from '../src/main/holdpoint-from-config.js';
import { startPaused } from './holdpoint-cycles.js';
import type { RedisInfo } from './redis-info.js';
import type { RedisTarget } from './redis-target.js';
import { benchConfig } from './scenarios.js';

/** What one paused run costs in Redis, measured over many. */
export interface PausedFootprint {
  runs: number;
  /** Growth of Redis's `used_memory` over pausing them, per run. */
  bytesPerRun: number;
  /** Keys added over pausing them, per run (their indexes included). */
  keysPerRun: number;
}

/** Runs paused at once while measuring: enough that allocator noise averages out. */
const CONCURRENCY = 20;

/**
 * Pauses `runs` runs (each its own session, one owner, as the bench cycle) on a fresh
 * prefix of `redis` and reads what Redis grew by. Only meaningful on a Redis the bench
 * has to itself, where nothing else allocates meanwhile.
 */
export async function measurePausedFootprint(
  redis: RedisTarget,
  info: RedisInfo,
  runs: number,
): Promise<PausedFootprint> {
  const { runtime } = await holdpointFromConfig(
    benchConfig({ store: 'redis', url: redis.url, prefix: redis.newPrefix() }),
  );
  try {
    // One run first, so what every run shares (the owner's index, the scripts) is not counted.
    await startPaused(runtime);
    const [memory, keys] = [await info.usedMemory(), await info.keyCount()];
    let next = 0;
    const worker = async () => {
      while (next < runs) {
        next += 1;
        await startPaused(runtime);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return {
      runs,
      bytesPerRun: ((await info.usedMemory()) - memory) / runs,
      keysPerRun: ((await info.keyCount()) - keys) / runs,
    };
  } finally {
    await runtime.close();
  }
}
