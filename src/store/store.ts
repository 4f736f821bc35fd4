import type { Session } from '@google/adk';
import type { EffectLedger } from '../core/effect-ledger.js';
import type { ErrorCode } from '../core/errors.js';
import type { StoreKind } from '../core/store-kinds.js';
import type { AuditEntry, Lease, Pause, RunRecord } from '../core/types.js';
import type {
  CommitObserver,
  NewSession,
  Page,
  PageCursor,
  SessionSnapshot,
  SessionTrail,
  SessionTransition,
  WaitingCount,
} from '../session/session-shapes.js';
import type { Delegations } from './delegations.js';
import type { Grants } from './grants.js';
import type { Outbox } from './outbox.js';
import type { RateCounters } from './rate-counters.js';
import type { RequestRecords } from './request-records.js';
import type { RunRelay } from './run-relay.js';
import type { UserMemories } from './user-memories.js';

export type { StoreKind } from '../core/store-kinds.js';

/** A round trip to the storage: a session read (`read`), or a commit (`commit`). */
export type StoreRoundTrip = 'read' | 'commit';

/** Told of each round trip: which, how many seconds it took, and its code when it failed. */
export type RoundTripObserver = (
  roundTrip: StoreRoundTrip,
  seconds: number,
  failure?: ErrorCode,
) => void;
// The session shapes live in session-shapes.ts (so that the transitions, the outbox and
// the waiting counts need not import this file); the store's callers find them here.
export type {
  CommitObserver,
  DecideResult,
  DecisionBatch,
  HoldState,
  NewSession,
  Page,
  PageCursor,
  RunEnding,
  SegmentEnd,
  SessionAppend,
  SessionSnapshot,
  SessionTrail,
  SessionTransition,
  SessionWrites,
  Transition,
} from '../session/session-shapes.js';

/**
 * How much a store holds now, as far as it can tell without a scan: what an operator
 * reads to size it and to see retention work. A figure the store cannot count cheaply
 * is left out (Redis expires keys by itself and keeps no count of sessions).
 */
export interface StoreStats {
  kind: StoreKind;
  /** The schema version of a SQL store's database. */
  schemaVersion?: number;
  /** Sessions kept (of any status, finished ones until their retention ends). */
  sessions?: number;
  /** Sessions waiting on a pending pause. */
  paused: number;
  /** Sessions whose run holds a lease (running, or interrupted until recovered). */
  running: number;
  /** Deliveries kept in the outbox (of any status, until their retention ends). */
  deliveries?: number;
  /** Grants kept (in force or not, until their retention ends). */
  grants?: number;
  /** What the store takes: the database's size on SQL stores, the records' JSON in memory. */
  bytes?: number;
}

/** The runs that hold a lease at a time: in force (a process drives them) or lapsed. */
export interface RunCounts {
  running: number;
  /** Lapsed: interrupted (their process stopped), until a recovery takes them. */
  interrupted: number;
}

/**
 * Durable state of Holdpoint: sessions (meta, ADK events and state), runs, pauses,
 * decisions, the audit log, the effect ledger and the indexes that find paused
 * sessions. Every change of a session is one atomic transition, applied by `apply`
 * (the one place a session is written, besides its creation), so two processes
 * sharing the store can never both resume a pause or both record a decision; a
 * transition's result is visible to nobody before it is stored.
 */
export interface HoldpointStore {
  readonly kind: StoreKind;
  readonly effects: EffectLedger;
  /** Requests made with an idempotency key, and their first answers. */
  readonly requests: RequestRecords;
  /** Per-principal request counts in fixed windows, for the rate limits. */
  readonly rates: RateCounters;
  /** Tells waiters in any process what happens to a session's run. */
  readonly relay: RunRelay;
  /** What ADK's memory service keeps per app and user. */
  readonly memories: UserMemories;
  /** Out-of-office delegations: whose approvals someone decides meanwhile. */
  readonly delegations: Delegations;
  /** Notifications of approval events, written with the commits that make them true. */
  readonly outbox: Outbox;
  /** Remembered permissions to run a tool's calls without a pause, until they expire. */
  readonly grants: Grants;

  /**
   * Creates an idle session, or with `begin` one whose first run already holds it;
   * `trail` is left holding the new session. Throws SESSION_EXISTS when the id is taken.
   */
  createSession(
    session: NewSession,
    begin?: { run: RunRecord; lease: Lease },
    trail?: SessionTrail,
  ): Promise<void>;
  /** The session's meta, latest pause and current run, read at one version. */
  getSnapshot(sessionId: string): Promise<SessionSnapshot | undefined>;
  /** The ADK session (stored events, merged state) when it is `app`'s and `userId`'s. */
  loadSession(sessionId: string, app: string, userId: string): Promise<Session | undefined>;

  /**
   * THE place where a session changes durably: runs `transition` (one of
   * `session/transitions/`, given the session's snapshot and `args`) as a compare-and-set on
   * the session's version, and returns its value once its writes are stored (or throws
   * its error, after they are). A commit that loses the race is computed again on what
   * is read then; its audit lines are chained onto the head it read. `seen`, the
   * session as the caller read it with getSnapshot, saves reading it again: the
   * transition is tried on it first (when it is stale, or the transition refuses, on
   * what is read then). A `SessionTrail` is tried on the same way, and left holding what
   * the commit stored.
   * SESSION_NOT_FOUND when there is no such session; OUTCOME_UNKNOWN when a commit's
   * reply was lost and the store stayed away too long to learn whether it was stored.
   */
  apply<A extends unknown[], T>(
    sessionId: string,
    transition: SessionTransition<A, T>,
    args: A,
    seen?: SessionSnapshot | SessionTrail,
  ): Promise<T>;

  getPause(sessionId: string, pauseId: string): Promise<Pause | undefined>;
  getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined>;
  /** The session an approval id belongs to. */
  findApproval(approvalId: string): Promise<string | undefined>;
  /** The session a run belongs to, by the run's invocation id. */
  findRun(invocationId: string): Promise<string | undefined>;
  /**
   * Sessions whose run is interrupted at `now` (running, its lease lapsed), longest
   * interrupted first, as snapshots; entries of sessions no longer running are dropped.
   */
  listInterrupted(
    query: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>>;
  /** Sessions whose pending pause is due to expire by `now`, oldest first, at most `limit`. */
  listDuePauses(now: number, limit: number): Promise<string[]>;
  /**
   * Sessions whose pending pause has an SLA step (reminder, escalation, deadline) due by
   * `now`, earliest first, at most `limit`: the index each commit of the pause scores
   * by `nextSlaAt`.
   */
  listDueSla(now: number, limit: number): Promise<string[]>;
  /**
   * Paused sessions, earliest expiry first, as snapshots: all of them, or those with an
   * approval one of `audiences` (`user:<id>`, `role:<name>`, see pauseAudiences) may
   * decide. An index entry whose session is no longer paused is dropped on the way.
   */
  listPaused(
    query: { audiences?: string[]; limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>>;
  /**
   * `userId`'s sessions (of every app), most recently updated first, as snapshots: a
   * page from the index of the owner's sessions, each entry written in the commit that
   * updated its session. A session leaves the list a session TTL after its last update
   * (as of `now`), whatever keeps its records longer (a pause's retention).
   */
  listUserSessions(
    userId: string,
    query: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>>;
  /**
   * How many approvals wait for people now, per app and tool (each that ever had one
   * wait, 0 included), across every instance: counts the commits that enter and leave a pending approval keep, read
   * in one call, never a scan of paused sessions.
   */
  countWaiting(): Promise<WaitingCount[]>;
  /**
   * How many runs hold a lease at `now`, in force or lapsed (interrupted): counted on the
   * index of running sessions by their lease's end, never a scan of sessions; a paused
   * run holds none and is not counted.
   */
  countRuns(now: number): Promise<RunCounts>;
  /**
   * Calls `observer` after every commit stored (`apply`'s, and a new session's first), until
   * the returned function is called.
   */
  observeCommits(observer: CommitObserver): () => void;
  /**
   * Calls `observer` after each round trip of a session's read or commit to the storage,
   * with how long it took and, when it failed, its code; until the returned function is
   * called. What watches the store's health (metrics) reads it here.
   */
  observeRoundTrips(observer: RoundTripObserver): () => void;
  /** A page of the audit log, oldest first. */
  listAudit(sessionId: string, offset: number, limit: number): Promise<AuditEntry[]>;
  /**
   * Takes the expiry sweep for `ms` unless another instance holds it, so instances
   * sharing the store take turns instead of each sweeping everything.
   */
  takeSweepTurn(owner: string, ms: number): Promise<boolean>;

  /** How much the store holds now (see StoreStats). */
  stats(): Promise<StoreStats>;
  /**
   * Removes, at most `limit` at a time, what has outlived its retention by `now`:
   * sessions past their lifetime (with their pauses, runs, events, audit and index
   * entries), the outbox's, ledger's, request records' and rate windows' expired rows,
   * and the grants a session TTL past their expiry. The sweeper calls it every beat;
   * what expires by itself (memory sessions, every Redis key) needs nothing here.
   * Answers how many records it removed.
   */
  purgeExpired(now: number, limit: number): Promise<number>;

  ping(): Promise<void>;
  /**
   * Whether writes go through, as the last commit found: resolves at once while the last
   * commit was stored (or none was refused), writing nothing; after a refused one
   * (STORE_UNAVAILABLE: a full disk, a read-only file, a store refusing writes), tries a
   * small write of the store's own and rejects with its failure when that fails too.
   */
  writable(): Promise<void>;
  close(): Promise<void>;
}
