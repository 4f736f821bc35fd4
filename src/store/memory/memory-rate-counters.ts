import type { RateCounters, RateHit } from '../rate-counters.js';

/**
 * At most this many keys are counted at once; past it the oldest window is forgotten
 * (its key counts from nothing again): a bound on memory, at worst a limit too lenient.
 */
const MAX_COUNTERS = 100_000;

/** Rate counters of one process: one entry per key, the current window's. */
export class MemoryRateCounters implements RateCounters {
  /** In order of the start of each entry's window, oldest first. */
  private readonly counters = new Map<string, { start: number; count: number; endsAt: number }>();

  async hit(hits: RateHit[], windowStart: number, windowMs: number): Promise<number[]> {
    const counts: number[] = [];
    for (const { key, limit } of hits) {
      const count = this.count(key, windowStart, windowMs);
      counts.push(count);
      if (limit !== undefined && count > limit) break;
    }
    return counts;
  }

  /** Counts one hit on `key` in the window from `windowStart`; its count now. */
  private count(key: string, windowStart: number, windowMs: number): number {
    const held = this.counters.get(key);
    if (held?.start === windowStart) return ++held.count;
    // A new window: re-inserted, so the map stays ordered by window start.
    this.counters.delete(key);
    this.counters.set(key, { start: windowStart, count: 1, endsAt: windowStart + windowMs });
    // Windows over by now (none can be hit again) and, past the bound, the oldest go.
    for (const [oldest, entry] of this.counters) {
      if (entry.endsAt > windowStart && this.counters.size <= MAX_COUNTERS) break;
      this.counters.delete(oldest);
    }
    return 1;
  }
}
