import { createHash } from 'node:crypto';
import { HoldpointError } from '../../core/errors.js';
import type { RateCounters, RateHit } from '../rate-counters.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';

/**
 * Rate counters in Redis: `<prefix>:rate:<sha256 of the key>:<window start>`, one
 * atomic INCR (and PEXPIRE on the first hit) per key, every key of one request in one
 * script call (lua/count-hits.lua), so every instance on the Redis counts into the same
 * window. Each counter expires a window after its first hit.
 */
export class RedisRateCounters implements RateCounters {
  private readonly countScript: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly prefix: string,
  ) {
    this.countScript = conn.script('count-hits');
  }

  hit(hits: RateHit[], windowStart: number, windowMs: number): Promise<number[]> {
    // Counting never waits out an outage: the request meets it again on its own, and
    // would wait for it twice.
    if (this.conn.failing) {
      return Promise.reject(
        new HoldpointError('STORE_UNAVAILABLE', 'The store is unavailable: reconnecting.'),
      );
    }
    const keys = hits.map(({ key }) => {
      const hashed = createHash('sha256').update(key).digest('hex');
      return `${this.prefix}:rate:${hashed}:${windowStart}`;
    });
    const limits = hits.map(({ limit }) => limit ?? '');
    return this.conn.run(async () =>
      ((await this.countScript(keys, [windowMs, ...limits])) as number[]).map(Number),
    );
  }
}
