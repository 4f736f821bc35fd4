import type { Event, Session } from '@google/adk';
import type { EffectLedger } from '../core/effect-ledger.js';
import type { HoldpointError } from '../core/errors.js';
import type { StoreKind } from '../core/store-kinds.js';
import type {
  AuditEntry,
  Decision,
  Lease,
  Pause,
  RunRecord,
  RunStatus,
  SessionMeta,
} from '../core/types.js';
import type { Delegations } from './delegations.js';
import type { Grants } from './grants.js';
import type { DeliveryRecord, Outbox } from './outbox.js';
import type { RateCounters } from './rate-counters.js';
import type { RequestRecords } from './request-records.js';
import type { RunRelay } from './run-relay.js';
import type { UserMemories } from './user-memories.js';
import type { WaitingCount } from './waiting-counts.js';

/** What a store reads of one session before a transition: its meta, latest pause and run. */
export interface SessionSnapshot {
  meta: SessionMeta;
  /** The session's latest pause (it may have ended). */
  pause?: Pause;
  /** The session's current (latest) run. */
  run?: RunRecord;
}

/**
 * The session as the latest of one caller's commits left it, for a caller that changes
 * one session several times in a row (a run segment, from the commit that started it):
 * `apply` tries its transition on `snapshot` first, as on a snapshot it was handed, so
 * the session is not read again, and leaves there what its commit stored. A commit by
 * anyone else meanwhile makes that first try lose its compare-and-set, and the session
 * is read again. It is kept in the caller's hands only, for as long as the caller lives.
 */
export interface SessionTrail {
  snapshot?: SessionSnapshot;
}

/**
 * What a run segment appended to its ADK session: the events, in order, and the
 * final value of every state key they changed (`app:` and `user:` keys included).
 * Written together with the transition that ends the segment, or not at all.
 */
export interface SessionAppend {
  events: Event[];
  state: Record<string, unknown>;
}

/** What a transition writes, all at once, for one session. */
export interface SessionWrites {
  meta: SessionMeta;
  pauses?: Pause[];
  runs?: RunRecord[];
  audit: AuditEntry[];
  /** Keep the pause record (a tombstone once it ends) until then. */
  pauseRetainUntil?: number;
  /** The ADK events and state a run segment appended. */
  append?: SessionAppend;
  /** The notifications of this commit's approval events (the outbox's planner). */
  deliveries?: DeliveryRecord[];
}

/**
 * Told of each commit `apply` stored, after it is stored, with the snapshot it was
 * computed on and what it wrote (audit lines chained): what derives from commits
 * without being part of them (metrics) reads them here, once per stored commit.
 */
export type CommitObserver = (before: SessionSnapshot, writes: SessionWrites) => void;

/** A transition's writes and its answer; `error` is thrown after the writes commit. */
export interface Transition<T> {
  writes?: SessionWrites;
  value?: T;
  error?: HoldpointError;
}

/**
 * A change of one session, as `transitions.ts` declares them: pure, from the session's
 * snapshot and `args` to what it writes and answers (or throws, writing nothing).
 */
export type SessionTransition<A extends unknown[], T> = (
  snapshot: SessionSnapshot,
  ...args: A
) => Transition<T>;

/**
 * What deciding (`decideTransition`) did: decisions recorded, and whether the caller
 * now resumes the run.
 */
export interface DecideResult {
  pause: Pause;
  /**
   * `resumes`: every approval is decided and this caller's lease holds the session: it
   * resumes the run.
   * `handed`: every approval is decided and the segment that holds the pause in place
   * (`Pause.heldBy`) now holds the session, under the caller's lease's end; it goes on.
   * `recorded`: the same request (by `requestId`) recorded these decisions before;
   * nothing was written now.
   */
  outcome: 'pending' | 'resumes' | 'handed' | 'recorded';
}

/**
 * What became of a pause a segment holds in place: `handed` to it (decided; the
 * session is the segment's under `lease`), still `waiting` for people, or `released`
 * (its hold ended, or the pause was decided without it, cancelled or expired).
 */
export type HoldState =
  | { state: 'handed'; pause: Pause; lease: Lease }
  | { state: 'waiting' }
  | { state: 'released' };

/** How a run ended, written atomically with the session going idle. */
export interface RunEnding {
  status: Extract<RunStatus, 'completed' | 'failed'>;
  result?: string;
  error?: string;
  audit: AuditEntry[];
}

/** The end of a run segment: the lease it held, what it appended, which calls ran. */
export interface SegmentEnd {
  sessionId: string;
  invocationId: string;
  lease: Lease;
  append: SessionAppend;
  /** Tool calls that produced a result in the segment (for `executed` audit lines). */
  executedCallIds: string[];
  now: number;
}

/**
 * Decisions to record: one by one, or one answer for every undecided approval; with
 * `pauseId`, only on that pause (PAUSE_MISMATCH when the session waits on another).
 */
export type DecisionBatch = ({ decisions: Decision[] } | { all: Omit<Decision, 'approvalId'> }) & {
  pauseId?: string;
};

/** A new session: who owns it, which app it belongs to, and when it was made. */
export interface NewSession {
  sessionId: string;
  app: string;
  userId: string;
  createdAt: number;
}

/** Where a page of a list starts: after this entry (as `next` gave it). */
export interface PageCursor {
  score: number;
  member: string;
}

/** One page of a list, and where the next one starts when there is more. */
export interface Page<T> {
  items: T[];
  next?: PageCursor;
}

export type { StoreKind } from '../core/store-kinds.js';

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
   * `transitions.ts`, given the session's snapshot and `args`) as a compare-and-set on
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
  /** Calls `observer` after every commit `apply` stores, until the returned function is called. */
  observeCommits(observer: CommitObserver): () => void;
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
  close(): Promise<void>;
}
