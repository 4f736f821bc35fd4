import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { TestRedis } from '../test/support/redis-server.js';

/** The Redis the Redis scenarios run against, and how to leave it as it was found. */
export interface RedisTarget {
  url: string;
  /** Human-readable origin, for the report. */
  description: string;
  /**
   * Whether the bench has this Redis to itself (its private redis-server): then it
   * may compact the append-only file, and every command Redis counts is the bench's.
   */
  exclusive: boolean;
  /** A fresh key prefix; every prefix handed out is removed by `close`. */
  newPrefix(): string;
  close(): Promise<void>;
}

/** Deletes every key under `prefix`, in batches, without blocking Redis with KEYS. */
async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/**
 * `url` when given (an existing Redis shared with others, so only our random
 * prefixes are touched), otherwise a private redis-server on a free 127.0.0.1 port.
 */
export async function acquireRedis(url?: string): Promise<RedisTarget> {
  // everysec is Redis's default AOF policy, what a production Redis would run with.
  const server = url ? undefined : await TestRedis.start('everysec');
  const target = url ?? (server as TestRedis).url;
  const prefixes: string[] = [];
  return {
    url: target,
    description: server
      ? `private redis-server on ${target} (AOF, appendfsync everysec)`
      : `BENCH_REDIS_URL ${target}`,
    exclusive: server !== undefined,
    newPrefix() {
      const prefix = `bench-${randomBytes(6).toString('hex')}`;
      prefixes.push(prefix);
      return prefix;
    },
    async close() {
      if (server) {
        await server.stop();
        return;
      }
      const redis = new Redis(target, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        for (const prefix of prefixes) await deletePrefix(redis, prefix);
      } finally {
        redis.disconnect();
      }
    },
  };
}
