/** How much work each scenario does; every count and time is bounded. */
export interface BenchSettings {
  warmupCycles: number;
  inProcessCycles: number;
  /** In-process scenarios take turns in rounds of this many cycles each. */
  roundCycles: number;
  httpCycles: number;
  /** Most time one scenario may spend warming up, then measuring (ms each). */
  warmupBudgetMs: number;
  measureBudgetMs: number;
  /** Cycles watched with MONITOR to count the Redis commands of one cycle (0: none). */
  monitorCycles: number;
  /** An external Redis to use instead of a private redis-server. */
  redisUrl?: string;
  /** Streaming scenarios: chats in flight at once, rounds of them, and their bounds. */
  streamConcurrency: number;
  streamWarmupRounds: number;
  streamRounds: number;
  /** Most time one streaming scenario may spend on timed rounds (ms). */
  streamBudgetMs: number;
  /** Longest one streamed chat may take before it counts as stalled (ms). */
  streamChatTimeoutMs: number;
  /** Whether to stream over the Redis store too, not only the memory store. */
  streamRedis: boolean;
}

function count(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new Error(`${name} must be a whole number ≥ 0, got ${value}`);
  }
  return parsed;
}

/**
 * Bench settings from the environment: BENCH_CYCLES, BENCH_ROUND_CYCLES, BENCH_HTTP_CYCLES,
 * BENCH_WARMUP, BENCH_SCENARIO_SECONDS, BENCH_MONITOR_CYCLES, BENCH_REDIS_URL, and for
 * the streaming scenarios BENCH_STREAM_CHATS, BENCH_STREAM_ROUNDS, BENCH_STREAM_SECONDS and
 * BENCH_STREAM_REDIS (0 to stream over the memory store only).
 */
export function loadBenchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  // Six scenarios at 8 s warm-up + 25 s measuring stay under ~3.5 minutes in the worst case;
  // the four streaming ones take ~30 s in all (each at most a 10 s warm-up round + 15 s + 10 s).
  const seconds = count(env.BENCH_SCENARIO_SECONDS, 25, 'BENCH_SCENARIO_SECONDS');
  return {
    warmupCycles: count(env.BENCH_WARMUP, 200, 'BENCH_WARMUP'),
    inProcessCycles: count(env.BENCH_CYCLES, 2000, 'BENCH_CYCLES'),
    roundCycles: Math.max(1, count(env.BENCH_ROUND_CYCLES, 50, 'BENCH_ROUND_CYCLES')),
    httpCycles: count(env.BENCH_HTTP_CYCLES, 500, 'BENCH_HTTP_CYCLES'),
    warmupBudgetMs: 8_000,
    measureBudgetMs: seconds * 1000,
    monitorCycles: count(env.BENCH_MONITOR_CYCLES, 20, 'BENCH_MONITOR_CYCLES'),
    redisUrl: env.BENCH_REDIS_URL || undefined,
    streamConcurrency: count(env.BENCH_STREAM_CHATS, 100, 'BENCH_STREAM_CHATS'),
    streamWarmupRounds: 1,
    streamRounds: count(env.BENCH_STREAM_ROUNDS, 3, 'BENCH_STREAM_ROUNDS'),
    streamBudgetMs: count(env.BENCH_STREAM_SECONDS, 15, 'BENCH_STREAM_SECONDS') * 1000,
    streamChatTimeoutMs: 10_000,
    streamRedis: env.BENCH_STREAM_REDIS !== '0',
  };
}
