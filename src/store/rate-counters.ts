/** One hit to count: a key, and the most its window may count before the hit is refused. */
export interface RateHit {
  key: string;
  /** No limit when absent: the hit is counted, never refused. */
  limit?: number;
}

/**
 * Counters of hits per key in fixed time windows, shared by every instance using the
 * store: what per-principal rate limits count with. A window's counter forgets itself
 * once the window is over, so nothing grows with time.
 */
export interface RateCounters {
  /**
   * Counts one hit on each of `hits`' keys, in order and in one step (one round trip), in
   * the window that starts at `windowStart` and lasts `windowMs`; stops after the first
   * key whose count passes its limit, so the keys after a refused one are not counted.
   * Resolves each counted key's count in the window, this hit included. Windows of one
   * key are counted apart: a later window starts from nothing.
   */
  hit(hits: RateHit[], windowStart: number, windowMs: number): Promise<number[]>;
}
