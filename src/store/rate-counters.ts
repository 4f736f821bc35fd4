/**
 * Counters of hits per key in fixed time windows, shared by every instance using the
 * store: what per-principal rate limits count with. A window's counter forgets itself
 * once the window is over, so nothing grows with time.
 */
export interface RateCounters {
  /**
   * Counts one hit on `key` in the window that starts at `windowStart` and lasts
   * `windowMs`; resolves the window's count, this hit included. Windows of one key
   * are counted apart: a later window starts from nothing.
   */
  hit(key: string, windowStart: number, windowMs: number): Promise<number>;
}
