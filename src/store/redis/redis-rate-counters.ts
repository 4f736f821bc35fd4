import { createHash } from 'node:crypto';
import { HoldpointError } from '../../core/errors.js';
import type { RateCounters } from '../rate-counters.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';

// One key per key and window; it expires on its own once its window can be over.
const HIT_LUA = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`;

/**
 * Rate counters in Redis: `<prefix>:rate:<sha256 of the key>:<window start>`, one
 * atomic INCR (and PEXPIRE on the first hit) per hit, so every instance on the Redis
 * counts into the same window. Each counter expires a window after its first hit.
 */
export class RedisRateCounters implements RateCounters {
  private readonly hitScript: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly prefix: string,
  ) {
    this.hitScript = conn.script('holdpointRateHit', HIT_LUA);
  }

  hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    // Counting never waits out an outage: the request meets it again on its own, and
    // would wait for it twice.
    if (this.conn.failing) {
      return Promise.reject(
        new HoldpointError('STORE_UNAVAILABLE', 'The store is unavailable: reconnecting.'),
      );
    }
    const hashed = createHash('sha256').update(key).digest('hex');
    return this.conn.run(async () =>
      Number(await this.hitScript([`${this.prefix}:rate:${hashed}:${windowStart}`], [windowMs])),
    );
  }
}
