import { DEFAULT_BENCH_POSTGRES_URL } from './postgres-target.js';

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
  /** Runs paused to measure what one keeps in Redis (0: not measured). */
  pausedRuns: number;
  /** An external Redis to use instead of a private redis-server. */
  redisUrl?: string;
  /** The PostgreSQL server the bench creates its own databases on (and drops them). */
  postgresUrl: string;
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
  /** In-process scenarios again with this many cycles in flight at once (0: not at all). */
  inFlightConcurrency: number;
  /** Timed wall time per in-flight scenario (ms), after a warm-up of a fifth of it. */
  inFlightMs: number;
  /** Paused sessions in each store (Redis, SQLite, PostgreSQL) for the scale figures (0: none). */
  scaleSessions: number;
  /** Sessions being seeded at once. */
  scaleSeedConcurrency: number;
  /** Resumes and inbox reads timed at each scale level. */
  scaleResumes: number;
  scaleInboxReads: number;
  /** How long each store's idle rate is measured at each scale level (ms). */
  scaleIdleMs: number;
}

function count(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new Error(`${name} must be a whole number ≥ 0, got ${value}`);
  }
  return parsed;
}

/** Below this many paused sessions the scale figures would compare nothing. */
const LEAST_SCALE_SESSIONS = 100;

/**
 * Bench settings from the environment: BENCH_CYCLES, BENCH_ROUND_CYCLES, BENCH_HTTP_CYCLES,
 * BENCH_WARMUP, BENCH_SCENARIO_SECONDS, BENCH_MONITOR_CYCLES, BENCH_PAUSED_RUNS,
 * BENCH_REDIS_URL, BENCH_POSTGRES_URL (a server to create the bench's own databases on); for
 * the streaming scenarios BENCH_STREAM_CHATS, BENCH_STREAM_ROUNDS, BENCH_STREAM_SECONDS and
 * BENCH_STREAM_REDIS (0 to stream over the memory store only); for cycles in flight
 * BENCH_IN_FLIGHT (how many at once, 0 to skip) and BENCH_IN_FLIGHT_SECONDS; for the scale
 * figures BENCH_SCALE_SESSIONS (paused sessions, 0 to skip, else at least 100),
 * BENCH_SCALE_SEED_CONCURRENCY, BENCH_SCALE_RESUMES, BENCH_SCALE_INBOX_READS and
 * BENCH_SCALE_IDLE_SECONDS.
 */
export function loadBenchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  // The in-process phase shares four scenarios' 8 s warm-up + 25 s measuring among its six
  // (bare ADK, four stores, the durable floor); the three HTTP ones take at most 33 s each;
  // the four streaming ones ~30 s in all (each at most a 10 s warm-up round + 15 s + 10 s);
  // the six in flight 6 × 8.4 s; bytes per paused run 1,000 runs on each of four stores;
  // the scale figures ~50 s (seeding 100,000 took 16 s on 2 cores).
  const seconds = count(env.BENCH_SCENARIO_SECONDS, 25, 'BENCH_SCENARIO_SECONDS');
  const scaleSessions = count(env.BENCH_SCALE_SESSIONS, 100_000, 'BENCH_SCALE_SESSIONS');
  if (scaleSessions > 0 && scaleSessions < LEAST_SCALE_SESSIONS) {
    throw new Error(`BENCH_SCALE_SESSIONS must be 0 or at least ${LEAST_SCALE_SESSIONS}`);
  }
  return {
    warmupCycles: count(env.BENCH_WARMUP, 200, 'BENCH_WARMUP'),
    inProcessCycles: count(env.BENCH_CYCLES, 1000, 'BENCH_CYCLES'),
    roundCycles: Math.max(1, count(env.BENCH_ROUND_CYCLES, 50, 'BENCH_ROUND_CYCLES')),
    httpCycles: count(env.BENCH_HTTP_CYCLES, 500, 'BENCH_HTTP_CYCLES'),
    warmupBudgetMs: 8_000,
    measureBudgetMs: seconds * 1000,
    monitorCycles: count(env.BENCH_MONITOR_CYCLES, 20, 'BENCH_MONITOR_CYCLES'),
    pausedRuns: count(env.BENCH_PAUSED_RUNS, 1000, 'BENCH_PAUSED_RUNS'),
    redisUrl: env.BENCH_REDIS_URL || undefined,
    postgresUrl: env.BENCH_POSTGRES_URL || DEFAULT_BENCH_POSTGRES_URL,
    streamConcurrency: count(env.BENCH_STREAM_CHATS, 100, 'BENCH_STREAM_CHATS'),
    streamWarmupRounds: 1,
    streamRounds: count(env.BENCH_STREAM_ROUNDS, 3, 'BENCH_STREAM_ROUNDS'),
    streamBudgetMs: count(env.BENCH_STREAM_SECONDS, 15, 'BENCH_STREAM_SECONDS') * 1000,
    streamChatTimeoutMs: 10_000,
    streamRedis: env.BENCH_STREAM_REDIS !== '0',
    inFlightConcurrency: count(env.BENCH_IN_FLIGHT, 50, 'BENCH_IN_FLIGHT'),
    inFlightMs: count(env.BENCH_IN_FLIGHT_SECONDS, 7, 'BENCH_IN_FLIGHT_SECONDS') * 1000,
    scaleSessions,
    scaleSeedConcurrency: Math.max(
      1,
      count(env.BENCH_SCALE_SEED_CONCURRENCY, 200, 'BENCH_SCALE_SEED_CONCURRENCY'),
    ),
    scaleResumes: Math.max(1, count(env.BENCH_SCALE_RESUMES, 200, 'BENCH_SCALE_RESUMES')),
    scaleInboxReads: Math.max(
      1,
      count(env.BENCH_SCALE_INBOX_READS, 500, 'BENCH_SCALE_INBOX_READS'),
    ),
    scaleIdleMs: count(env.BENCH_SCALE_IDLE_SECONDS, 15, 'BENCH_SCALE_IDLE_SECONDS') * 1000,
  };
}
