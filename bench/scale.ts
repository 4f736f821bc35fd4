import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import { resumeApproved, startPaused } from './holdpoint-cycles.js';
import { percentile } from './measure.js';
import type { PlanCheck } from './sql-plans.js';

/** The almost empty store: the inbox user's paused sessions and nothing else. */
export const INBOX_APPROVALS = 10;
/**
 * Inbox reads or resumes per level in one round. A round resumes sessions paused
 * just before it, so a level holds at most this many more paused sessions than it says.
 */
const ROUND_CALLS = 10;
export const INBOX_USER = 'inbox-user';
const RESUME_USER = 'resume-user';
export const TEMPLATE_USER = 'template-user';
/** Seeded sessions per owner: many owners, each with a short inbox. */
export const SESSIONS_PER_OWNER = 10;

/** p50 and p99 of `count` timed calls, in ms. */
export interface Latency {
  count: number;
  p50Ms: number;
  p99Ms: number;
}

/** What the runtime does at one number of paused sessions in one store. */
export interface ScaleLevel {
  /** Paused sessions indexed in the store, read before the timings (resumes add ≤ ROUND_CALLS). */
  paused: number;
  /** `runtime.resume` of one session paused with the same request, approved. */
  resume: Latency;
  /** `runtime.listPendingApprovals` of a user with exactly 10 pending approvals. */
  inbox: Latency;
  /** What the store did per second while the runtime only swept (see `ScaleReport.idleUnit`). */
  idleCommandsPerSecond: number;
  /** How often the sweeper ran meanwhile: the server's default. */
  sweepIntervalSeconds: number;
}

/** How the full store was filled, and what each paused session costs in it. */
export interface SeedFigures {
  sessions: number;
  seconds: number;
  /** How the sessions were written, for the report. */
  method: string;
  sessionsPerOwner: number;
  /** Growth of the store's size over the seeding, per seeded session. */
  bytesPerSession: number;
  /** What the size is (Redis `used_memory`, the database's size on disk). */
  bytesMeasure: string;
  /** Redis only: keys added over the seeding, per seeded session (the owners' indexes included). */
  keysPerSession?: number;
}

/** The scale figures of point 6 on one store: one almost empty store against one full of paused sessions. */
export interface ScaleReport {
  store: string;
  /** What the idle figure counts, per second. */
  idleUnit: string;
  idleSeconds: number;
  inboxApprovals: number;
  seed: SeedFigures;
  almostEmpty: ScaleLevel;
  full: ScaleLevel;
  /** SQL stores: the query plans of the store's lists at the full level. */
  plans?: PlanCheck[];
}

/** How many paused sessions, how fast to seed them, and how much to time at each level. */
export interface ScalePlan {
  pausedSessions: number;
  seedConcurrency: number;
  resumes: number;
  inboxReads: number;
  idleMs: number;
}

/** A runtime on a store of its own, the inbox user's sessions paused. */
export interface ScaleLevelRuntime {
  runtime: HoldpointRuntime;
  sweepIntervalSeconds: number;
}

/** What differs between stores in the scale figures: where levels live, how they fill, what idle costs. */
export interface ScaleStore<L extends ScaleLevelRuntime> {
  name: string;
  idleUnit: string;
  /** A runtime on a fresh, empty store of its own (prefix, data directory, database). */
  openStore(): Promise<L>;
  /** Fills `level` up to `total` paused sessions from one real paused run. */
  seed(level: L, total: number, plan: ScalePlan): Promise<SeedFigures>;
  /** After seeding, before anything is timed: let the store settle what seeding set off. */
  settle(level: L): Promise<void>;
  pausedIn(level: L): Promise<number>;
  /** What the store does per second over the next `ms` (the runtime's sweeper runs). */
  ratePerSecond(level: L, ms: number): Promise<number>;
  /** The plans of the store's list queries at `level`, when the store has plans. */
  plans?(level: L): Promise<PlanCheck[]>;
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

/** A runtime on a fresh store with the inbox user's 10 sessions paused. */
async function openLevel<L extends ScaleLevelRuntime>(store: ScaleStore<L>): Promise<L> {
  const level = await store.openStore();
  try {
    for (let i = 0; i < INBOX_APPROVALS; i++)
      await startPaused(level.runtime.operations, INBOX_USER);
  } catch (error) {
    await level.runtime.close();
    throw error;
  }
  return level;
}

/** The store's rate while the level's runtime runs its expiry sweeper, as a server does, and nothing else runs. */
async function idleRate<L extends ScaleLevelRuntime>(
  store: ScaleStore<L>,
  level: L,
  ms: number,
): Promise<number> {
  const stopSweeper = level.runtime.startSweeper(level.sweepIntervalSeconds);
  try {
    // Half a beat in, so the window holds whole beats and never straddles one.
    await sleep((level.sweepIntervalSeconds * 1000) / 2);
    return await store.ratePerSecond(level, ms);
  } finally {
    stopSweeper();
  }
}

/** ROUND_CALLS inbox reads of the inbox user, timed. */
async function inboxRound(level: ScaleLevelRuntime): Promise<number[]> {
  const read = async () => {
    const page = await level.runtime.operations.listApprovals({}, { id: INBOX_USER, roles: [] });
    if (page.approvals.length !== INBOX_APPROVALS) {
      throw new Error(`the inbox listed ${page.approvals.length}, expected ${INBOX_APPROVALS}`);
    }
  };
  const ms: number[] = [];
  for (let i = 0; i < ROUND_CALLS; i++) ms.push(await timed(read));
  return ms;
}

/** ROUND_CALLS runs paused (untimed), then resumed one at a time (timed). */
async function resumeRound(level: ScaleLevelRuntime): Promise<number[]> {
  const { runtime } = level;
  const sessions: string[] = [];
  for (let i = 0; i < ROUND_CALLS; i++)
    sessions.push(await startPaused(runtime.operations, RESUME_USER));
  const ms: number[] = [];
  for (const sessionId of sessions) {
    ms.push(await timed(() => resumeApproved(runtime.operations, sessionId, RESUME_USER)));
  }
  return ms;
}

/**
 * Runs `round` on each level in turn for `rounds` rounds after one untimed round,
 * the order flipping every round, so a machine getting slower or faster meanwhile
 * weighs on both levels alike; returns each level's timings.
 */
async function alternating<L>(
  levels: readonly [L, L],
  rounds: number,
  round: (level: L) => Promise<number[]>,
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
 * Seeds the full level, then takes the store's idle rate for each level alone and
 * alternates inbox reads and resumes between the two; a SQL store's list plans are
 * read at the full level last.
 */
async function measureLevels<L extends ScaleLevelRuntime>(
  store: ScaleStore<L>,
  levels: readonly [L, L],
  plan: ScalePlan,
): Promise<ScaleReport> {
  const progress = (line: string) => process.stderr.write(`bench: scale, ${store.name}: ${line}\n`);
  progress(`seeding ${plan.pausedSessions} paused …`);
  const seeded = await store.seed(levels[1], plan.pausedSessions, plan);
  progress(`seeded in ${seeded.seconds.toFixed(1)} s; idle, inbox and resumes …`);
  await store.settle(levels[1]);
  const paused = [await store.pausedIn(levels[0]), await store.pausedIn(levels[1])] as const;
  const idle = [
    await idleRate(store, levels[0], plan.idleMs),
    await idleRate(store, levels[1], plan.idleMs),
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
    store: store.name,
    idleUnit: store.idleUnit,
    idleSeconds: plan.idleMs / 1000,
    inboxApprovals: INBOX_APPROVALS,
    seed: seeded,
    almostEmpty: figures(0),
    full: figures(1),
    plans: store.plans ? await store.plans(levels[1]) : undefined,
  };
}

/**
 * The scale figures on `store`: two runtimes, each on a fresh store of its own, one
 * with the inbox user's 10 paused sessions alone, one with `plan.pausedSessions` paused
 * sessions in all, seeded over many owners.
 */
export async function measureScale<L extends ScaleLevelRuntime>(
  store: ScaleStore<L>,
  plan: ScalePlan,
): Promise<ScaleReport> {
  const almostEmpty = await openLevel(store);
  try {
    const full = await openLevel(store);
    try {
      return await measureLevels(store, [almostEmpty, full], plan);
    } finally {
      await full.runtime.close();
    }
  } finally {
    await almostEmpty.runtime.close();
  }
}
