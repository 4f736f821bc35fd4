import { performance } from 'node:perf_hooks';

/** One full start → pause → resume → complete cycle; rejects when the cycle went wrong. */
export type Cycle = () => Promise<void>;

/** Latency statistics of one scenario. */
export interface Sample {
  scenario: string;
  cycles: number;
  cyclesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** True when the time budget ended the run before the planned count. */
  cutShort: boolean;
}

/** How many cycles to run, and for at most how long. */
export interface MeasurePlan {
  warmupCycles: number;
  warmupBudgetMs: number;
  cycles: number;
  budgetMs: number;
  /** Runs right before and after the timed cycles, e.g. to read server counters. */
  beforeTimed?: () => Promise<void>;
  afterTimed?: (cycles: number) => Promise<void>;
}

/** The nearest-rank percentile `p` (0..100) of ascending `sorted`. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** Runs `cycle` up to `limit` times, one at a time, stopping once `budgetMs` is spent. */
async function runCycles(cycle: Cycle, limit: number, budgetMs: number): Promise<number[]> {
  const latencies: number[] = [];
  const deadline = performance.now() + budgetMs;
  while (latencies.length < limit && performance.now() < deadline) {
    const started = performance.now();
    await cycle();
    latencies.push(performance.now() - started);
  }
  return latencies;
}

/**
 * Warms `cycle` up, then times it sequentially, so each latency is one cycle alone
 * and cycles/s is the inverse of the mean latency.
 */
export async function measure(scenario: string, cycle: Cycle, plan: MeasurePlan): Promise<Sample> {
  await runCycles(cycle, plan.warmupCycles, plan.warmupBudgetMs);
  await plan.beforeTimed?.();
  const latencies = await runCycles(cycle, plan.cycles, plan.budgetMs);
  await plan.afterTimed?.(latencies.length);
  const total = latencies.reduce((sum, ms) => sum + ms, 0);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    scenario,
    cycles: latencies.length,
    cyclesPerSecond: total > 0 ? (latencies.length * 1000) / total : 0,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: latencies.length > 0 ? total / latencies.length : Number.NaN,
    cutShort: latencies.length < plan.cycles,
  };
}
