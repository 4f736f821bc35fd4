import { createHash } from 'node:crypto';
import type { RateCounters, RateHit } from '../rate-counters.js';
import type { SqlDriver } from './sql-driver.js';

/**
 * Rate windows in `hp_rate_windows`: one row per key (its SHA-256) and window start,
 * every key of one request counted in one transaction, so every instance on the
 * database counts into the same window. A window's row expires a window after its first
 * hit (as the Redis counter's key does): a hit after that counts from one again, and
 * the store's purge removes it.
 */
export class SqlRateCounters implements RateCounters {
  constructor(readonly driver: SqlDriver) {}

  hit(hits: RateHit[], windowStart: number, windowMs: number): Promise<number[]> {
    const now = Date.now();
    return this.driver.transaction(async (tx) => {
      const counts: number[] = [];
      for (const { key, limit } of hits) {
        const { rows } = await tx.query(
          `INSERT INTO hp_rate_windows (key, window_start, count, expires_at) VALUES ($1, $2, 1, $3)
           ON CONFLICT (key, window_start) DO UPDATE SET
             count = CASE WHEN hp_rate_windows.expires_at <= $4 THEN 1
                          ELSE hp_rate_windows.count + 1 END,
             expires_at = CASE WHEN hp_rate_windows.expires_at <= $4 THEN excluded.expires_at
                               ELSE hp_rate_windows.expires_at END
           RETURNING count`,
          [createHash('sha256').update(key).digest('hex'), windowStart, now + windowMs, now],
          { prepared: true },
        );
        const count = Number(rows[0]?.count);
        counts.push(count);
        if (limit !== undefined && count > limit) break;
      }
      return counts;
    });
  }
}
