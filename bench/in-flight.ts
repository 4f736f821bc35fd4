import { performance } from 'node:perf_hooks';
import { type Contender, type Cycle, percentile } from './measure.js';

/** Throughput and latency of one scenario with many cycles in flight at once. */
export interface InFlightSample {
  scenario: string;
  /** Cycles in flight at once. */
  concurrency: number;
  /** Cycles completed in the timed slices. */
  cycles: number;
  /** Completed cycles per second of wall time, over the timed slices. */
  cyclesPerSecond: number;
  /** Latency of one cycle among `concurrency` in flight. */
  p50Ms: number;
  p99Ms: number;
}

/** How many cycles in flight, and for how long each scenario is warmed up, then timed. */
export interface InFlightPlan {
  concurrency: number;
  warmupMs: number;
  /** Timed wall time per scenario (ms), spent in slices of `sliceMs`. */
  durationMs: number;
  sliceMs: number;
}

interface Slice {
  latencies: number[];
  wallMs: number;
}

/**
 * `concurrency` loops, each running `cycle` back to back until `ms` have passed;
 * the slice ends when the last cycle in flight has, so its wall time holds every
 * cycle it counts.
 */
async function slice(cycle: Cycle, concurrency: number, ms: number): Promise<Slice> {
  const started = performance.now();
  const deadline = started + ms;
  const latencies: number[] = [];
  const loop = async () => {
    while (performance.now() < deadline) {
      const begun = performance.now();
      await cycle();
      latencies.push(performance.now() - begun);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { latencies, wallMs: performance.now() - started };
}

/**
 * Warms every contender up under load, then times them in alternating slices,
 * the order rotating every round, so that a machine getting slower or faster
 * meanwhile weighs on all of them alike, as `measureInterleaved` does for
 * sequential cycles. The loops share this process's event loop with what they
 * drive, so cycles/s is what one process sustains, clients included.
 */
export async function measureInFlight(
  contenders: Contender[],
  plan: InFlightPlan,
): Promise<InFlightSample[]> {
  for (const { cycle } of contenders) await slice(cycle, plan.concurrency, plan.warmupMs);
  const runs = contenders.map((contender) => ({ contender, latencies: [] as number[], wallMs: 0 }));
  const rounds = Math.max(1, Math.ceil(plan.durationMs / plan.sliceMs));
  for (let round = 0; round < rounds; round++) {
    const first = round % runs.length;
    for (const run of [...runs.slice(first), ...runs.slice(0, first)]) {
      const ms = Math.min(plan.sliceMs, plan.durationMs - round * plan.sliceMs);
      const timed = await slice(run.contender.cycle, plan.concurrency, ms);
      run.latencies.push(...timed.latencies);
      run.wallMs += timed.wallMs;
    }
  }
  return runs.map(({ contender, latencies, wallMs }) => {
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      scenario: contender.scenario,
      concurrency: plan.concurrency,
      cycles: latencies.length,
      cyclesPerSecond: wallMs > 0 ? (latencies.length * 1000) / wallMs : 0,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
    };
  });
}
