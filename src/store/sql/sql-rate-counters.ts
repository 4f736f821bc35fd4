import type { RateCounters, RateHit } from '../rate-counters.js';
import type { SqlDriver } from './sql-driver.js';

/** Rate windows in `hp_rate_windows` (skeleton: written by the sql-records part). */
export class SqlRateCounters implements RateCounters {
  constructor(readonly driver: SqlDriver) {}
  hit(_hits: RateHit[], _windowStart: number, _windowMs: number): Promise<number[]> {
    throw new Error('not written yet');
  }
}
