import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { holdpointFromConfig } from '../src/main/holdpoint-from-config.js';
import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import { RedisKeys } from '../src/store/redis/redis-keys.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import { resumeApproved, startPaused } from './holdpoint-cycles.js';
import { percentile } from './measure.js';
import type { RedisInfo } from './redis-info.js';
import type { RedisTarget } from './redis-target.js';
import { benchConfig } from './scenarios.js';
import { capturePausedTemplate, seedPaused } from './seed-paused.js';

/** The almost empty store: the inbox user's paused sessions and nothing else. */
const INBOX_APPROVALS = 10;
/**
 * Inbox reads or resumes per level in one round. A round resumes sessions paused
 * just before it, so a level holds at most this many more paused sessions than it says.
 */
const ROUND_CALLS = 10;
const INBOX_USER = 'inbox-user';
const RESUME_USER = 'resume-user';
const TEMPLATE_USER = 'template-user';
/** Seeded sessions per owner: many owners, each with a short inbox. */
const SESSIONS_PER_OWNER = 10;
const HOUR_MS = 3_600_000;

/** p50 and p99 of `count` timed calls, in ms. */
export interface Latency {
  count: number;
  p50Ms: number;
  p99Ms: number;
}

/** What the runtime does at one number of paused sessions in Redis. */
export interface ScaleLevel {
  /** Paused sessions indexed in the store, read before the timings (resumes add ≤ ROUND_CALLS). */
  paused: number;
  /** `runtime.resume` of one session paused with the same request, approved. */
  resume: Latency;
  /** `runtime.listPendingApprovals` of a user with exactly 10 pending approvals. */
  inbox: Latency;
  /** Commands Redis executed per second while the runtime only swept. */
  idleCommandsPerSecond: number;
  /** How often the sweeper ran meanwhile: the server's default. */
  sweepIntervalSeconds: number;
}

/** How the full store was filled, and what each paused session costs in Redis. */
export interface SeedFigures {
  sessions: number;
  seconds: number;
  concurrency: number;
  sessionsPerOwner: number;
  /** Growth of Redis's `used_memory` over the seeding, per seeded session. */
  bytesPerSession: number;
  /** Keys added over the seeding, per seeded session (the owners' indexes included). */
  keysPerSession: number;
}

/** The scale figures of point 6: one almost empty store against one full of paused sessions. */
export interface ScaleReport {
  idleSeconds: number;
  inboxApprovals: number;
  seed: SeedFigures;
  almostEmpty: ScaleLevel;
  full: ScaleLevel;
}

/** How many paused sessions, how fast to seed them, and how much to time at each level. */
export interface ScalePlan {
  pausedSessions: number;
  seedConcurrency: number;
  resumes: number;
  inboxReads: number;
  idleMs: number;
}

/** A runtime on the Redis store under a fresh prefix, the inbox user's sessions paused. */
interface Level {
  url: string;
  prefix: string;
  runtime: HoldpointRuntime;
  sessionTtlSeconds: number;
  sweepIntervalSeconds: number;
}

function latency(ms: number[]): Latency {
  const sorted = [...ms].sort((a, b) => a - b);
  return { count: ms.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/** A runtime on a fresh prefix of `redis` with the inbox user's 10 sessions paused. */
async function openLevel(redis: RedisTarget): Promise<Level> {
  const prefix = redis.newPrefix();
  const { config, runtime } = await holdpointFromConfig(
    benchConfig({ store: 'redis', url: redis.url, prefix }),
  );
  try {
    for (let i = 0; i < INBOX_APPROVALS; i++) await startPaused(runtime, INBOX_USER);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  return {
    url: redis.url,
    prefix,
    runtime,
    sessionTtlSeconds: config.sessionTtlSeconds,
    sweepIntervalSeconds: config.sweepIntervalSeconds,
  };
}

/**
 * Fills the level's store up to `total` paused sessions: one real paused run,
 * then copies of what it stored, written through the store's own transitions.
 */
async function seed(
  level: Level,
  total: number,
  concurrency: number,
  info: RedisInfo,
): Promise<SeedFigures> {
  const store = await RedisStore.connect({
    url: level.url,
    keyPrefix: level.prefix,
    sessionTtlSeconds: level.sessionTtlSeconds,
  });
  try {
    const template = await capturePausedTemplate(level.runtime, store, TEMPLATE_USER);
    const sessions = Math.max(0, total - INBOX_APPROVALS - 1);
    const [memory, keys] = [await info.usedMemory(), await info.keyCount()];
    const started = performance.now();
    await seedPaused(store, template, {
      count: sessions,
      concurrency,
      sessionsPerOwner: SESSIONS_PER_OWNER,
      ownerPrefix: 'owner',
      // An hour out, so nothing seeded falls due while the figures are taken.
      pauseTtlMs: HOUR_MS,
      retentionMs: level.sessionTtlSeconds * 1000,
    });
    const seconds = (performance.now() - started) / 1000;
    const [memoryAfter, keysAfter] = [await info.usedMemory(), await info.keyCount()];
    return {
      sessions,
      seconds,
      concurrency,
      sessionsPerOwner: SESSIONS_PER_OWNER,
      bytesPerSession: (memoryAfter - memory) / sessions,
      keysPerSession: (keysAfter - keys) / sessions,
    };
  } finally {
    await store.close();
  }
}

/**
 * Redis's command rate while the level's runtime runs its expiry sweeper, as a
 * server does, and nothing else runs.
 */
async function idleRate(level: Level, info: RedisInfo, ms: number): Promise<number> {
  const stopSweeper = level.runtime.startSweeper(level.sweepIntervalSeconds);
  try {
    // Half a beat in, so the window holds whole beats and never straddles one.
    await sleep((level.sweepIntervalSeconds * 1000) / 2);
    return await info.commandsPerSecond(ms);
  } finally {
    stopSweeper();
  }
}

/** ROUND_CALLS inbox reads of the inbox user, timed. */
async function inboxRound(level: Level): Promise<number[]> {
  const read = async () => {
    const page = await level.runtime.listPendingApprovals({}, { id: INBOX_USER, roles: [] });
    if (page.approvals.length !== INBOX_APPROVALS) {
      throw new Error(`the inbox listed ${page.approvals.length}, expected ${INBOX_APPROVALS}`);
    }
  };
  const ms: number[] = [];
  for (let i = 0; i < ROUND_CALLS; i++) ms.push(await timed(read));
  return ms;
}

/** ROUND_CALLS runs paused (untimed), then resumed one at a time (timed). */
async function resumeRound(level: Level): Promise<number[]> {
  const { runtime } = level;
  const sessions: string[] = [];
  for (let i = 0; i < ROUND_CALLS; i++) sessions.push(await startPaused(runtime, RESUME_USER));
  const ms: number[] = [];
  for (const sessionId of sessions) {
    ms.push(await timed(() => resumeApproved(runtime, sessionId, RESUME_USER)));
  }
  return ms;
}

/** The almost empty level and the full one. */
type Pair = readonly [Level, Level];

/**
 * Runs `round` on each level in turn for `rounds` rounds after one untimed round,
 * the order flipping every round, so a machine getting slower or faster meanwhile
 * weighs on both levels alike; returns each level's timings.
 */
async function alternating(
  levels: Pair,
  rounds: number,
  round: (level: Level) => Promise<number[]>,
): Promise<[Latency, Latency]> {
  const timings: [number[], number[]] = [[], []];
  for (let r = -1; r < rounds; r++) {
    for (const i of r % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) {
      const ms = await round(levels[i]);
      if (r >= 0) timings[i].push(...ms);
    }
  }
  return [latency(timings[0]), latency(timings[1])];
}

/**
 * Seeds the full level, then takes Redis's idle command rate for each level
 * alone and alternates inbox reads and resumes between the two. On a Redis of
 * its own the append-only file is compacted after seeding, so no rewrite runs
 * while anything is timed.
 */
async function measureLevels(
  levels: Pair,
  plan: ScalePlan,
  info: RedisInfo,
  exclusive: boolean,
): Promise<ScaleReport> {
  const progress = (line: string) => process.stderr.write(`bench: scale: ${line}\n`);
  progress(`seeding ${plan.pausedSessions} paused …`);
  const seeded = await seed(levels[1], plan.pausedSessions, plan.seedConcurrency, info);
  progress(`seeded in ${seeded.seconds.toFixed(1)} s; idle, inbox and resumes …`);
  if (exclusive) await info.settleAppendOnlyFile();
  const pausedIn = (level: Level) => info.cardinality(new RedisKeys(level.prefix).paused());
  const paused = [await pausedIn(levels[0]), await pausedIn(levels[1])] as const;
  const idle = [
    await idleRate(levels[0], info, plan.idleMs),
    await idleRate(levels[1], info, plan.idleMs),
  ] as const;
  const inbox = await alternating(levels, Math.ceil(plan.inboxReads / ROUND_CALLS), inboxRound);
  const resume = await alternating(levels, Math.ceil(plan.resumes / ROUND_CALLS), resumeRound);
  const figures = (i: 0 | 1): ScaleLevel => ({
    paused: paused[i],
    resume: resume[i],
    inbox: inbox[i],
    idleCommandsPerSecond: idle[i],
    sweepIntervalSeconds: levels[i].sweepIntervalSeconds,
  });
  return {
    idleSeconds: plan.idleMs / 1000,
    inboxApprovals: INBOX_APPROVALS,
    seed: seeded,
    almostEmpty: figures(0),
    full: figures(1),
  };
}

/**
 * The scale figures on `redis`: two runtimes, each on a fresh prefix, one with
 * the inbox user's 10 paused sessions alone, one with `plan.pausedSessions` paused
 * sessions in all, seeded over many owners. On a shared Redis (not `exclusive`)
 * the idle rate counts every client's commands.
 */
export async function measureScale(
  redis: RedisTarget,
  plan: ScalePlan,
  info: RedisInfo,
): Promise<ScaleReport> {
  const almostEmpty = await openLevel(redis);
  try {
    const full = await openLevel(redis);
    try {
      return await measureLevels([almostEmpty, full], plan, info, redis.exclusive);
    } finally {
      await full.runtime.close();
    }
  } finally {
    await almostEmpty.runtime.close();
  }
}
