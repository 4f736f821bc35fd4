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

/** Latency statistics of `latencies` (ms, one cycle each, in any order). */
function summarize(scenario: string, latencies: number[], planned: number): Sample {
  const total = latencies.reduce((sum, ms) => sum + ms, 0);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    scenario,
    cycles: latencies.length,
    cyclesPerSecond: total > 0 ? (latencies.length * 1000) / total : 0,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: latencies.length > 0 ? total / latencies.length : Number.NaN,
    cutShort: latencies.length < planned,
  };
}

/**
 * Warms `cycle` up, then times it sequentially, so each latency is one cycle alone
 * and cycles/s is the inverse of the mean latency.
 */
export async function measure(scenario: string, cycle: Cycle, plan: MeasurePlan): Promise<Sample> {
  await runCycles(cycle, plan.warmupCycles, plan.warmupBudgetMs);
  const latencies = await runCycles(cycle, plan.cycles, plan.budgetMs);
  return summarize(scenario, latencies, plan.cycles);
}

/** A cycle to time beside others. */
export interface Contender {
  scenario: string;
  cycle: Cycle;
}

/**
 * Times several cycles in alternating rounds of `roundCycles` each, the order
 * rotating every round, so that a machine getting slower or faster during the run
 * weighs on all of them alike and their ratios hold. Each gets `plan.budgetMs`.
 */
export async function measureInterleaved(
  contenders: Contender[],
  plan: MeasurePlan & { roundCycles: number },
): Promise<Sample[]> {
  for (const { cycle } of contenders)
    await runCycles(cycle, plan.warmupCycles, plan.warmupBudgetMs);
  const runs = contenders.map((contender) => ({ contender, latencies: [] as number[] }));
  const deadline = performance.now() + plan.budgetMs * contenders.length;
  for (let round = 0; performance.now() < deadline; round++) {
    const first = round % runs.length;
    const rotated = [...runs.slice(first), ...runs.slice(0, first)];
    const open = rotated.filter((run) => run.latencies.length < plan.cycles);
    if (open.length === 0) break;
    for (const run of open) {
      const left = Math.min(plan.roundCycles, plan.cycles - run.latencies.length);
      run.latencies.push(...(await runCycles(run.contender.cycle, left, Number.POSITIVE_INFINITY)));
    }
  }
  return runs.map(({ contender, latencies }) =>
    summarize(contender.scenario, latencies, plan.cycles),
  );
}
