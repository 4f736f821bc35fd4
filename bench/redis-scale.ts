import { performance } from 'node:perf_hooks';
import { holdpointFromConfig } from '../src/main/holdpoint-from-config.js';
import { RedisKeys } from '../src/store/redis/redis-keys.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import type { RedisInfo } from './redis-info.js';
import type { RedisTarget } from './redis-target.js';
import type { ScaleLevelRuntime, ScaleStore, SeedFigures } from './scale.js';
import { SESSIONS_PER_OWNER, TEMPLATE_USER } from './scale.js';
import { benchConfig } from './scenarios.js';
import { capturePausedTemplate, seedPaused } from './seed-paused.js';

const HOUR_MS = 3_600_000;

/** A level on a fresh prefix of the Redis. */
interface RedisLevel extends ScaleLevelRuntime {
  prefix: string;
  sessionTtlSeconds: number;
}

/**
 * The scale figures' Redis: each level under a prefix of its own, seeded through the
 * store's own transitions; idle cost is every command Redis executed (on a shared Redis,
 * every client's). On a Redis of its own the append-only file is compacted after seeding,
 * so no rewrite runs while anything is timed.
 */
export function redisScaleStore(redis: RedisTarget, info: RedisInfo): ScaleStore<RedisLevel> {
  const pausedIn = (level: RedisLevel) => info.cardinality(new RedisKeys(level.prefix).paused());
  return {
    name: 'Redis',
    idleUnit: 'Redis commands/s',
    async openStore() {
      const prefix = redis.newPrefix();
      const { config, runtime } = await holdpointFromConfig(
        benchConfig({ store: 'redis', url: redis.url, prefix }),
      );
      return {
        prefix,
        runtime,
        sessionTtlSeconds: config.sessionTtlSeconds,
        sweepIntervalSeconds: config.sweepIntervalSeconds,
      };
    },
    async seed(level, total, plan): Promise<SeedFigures> {
      const store = await RedisStore.connect({
        url: redis.url,
        keyPrefix: level.prefix,
        sessionTtlSeconds: level.sessionTtlSeconds,
      });
      try {
        const template = await capturePausedTemplate(level.runtime, store, TEMPLATE_USER);
        const sessions = Math.max(0, total - (await pausedIn(level)));
        const [memory, keys] = [await info.usedMemory(), await info.keyCount()];
        const started = performance.now();
        await seedPaused(store, template, {
          count: sessions,
          concurrency: plan.seedConcurrency,
          sessionsPerOwner: SESSIONS_PER_OWNER,
          ownerPrefix: 'owner',
          // An hour out, so nothing seeded falls due while the figures are taken.
          pauseTtlMs: HOUR_MS,
          retentionMs: level.sessionTtlSeconds * 1000,
        });
        const seconds = (performance.now() - started) / 1000;
        const [memoryAfter, keysAfter] = [await info.usedMemory(), await info.keyCount()];
        return {
          sessions,
          seconds,
          method: `through the store's transitions, ${plan.seedConcurrency} in flight`,
          sessionsPerOwner: SESSIONS_PER_OWNER,
          bytesPerSession: (memoryAfter - memory) / sessions,
          bytesMeasure: 'used_memory growth / sessions',
          keysPerSession: (keysAfter - keys) / sessions,
        };
      } finally {
        await store.close();
      }
    },
    async settle() {
      if (redis.exclusive) await info.settleAppendOnlyFile();
    },
    pausedIn,
    ratePerSecond: (_level, ms) => info.commandsPerSecond(ms),
  };
}
