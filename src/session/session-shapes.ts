import type { Event } from '@google/adk';
import type { ApprovalEvent } from '../core/approval-event.js';
import type { HoldpointError } from '../core/errors.js';
import type {
  AuditEntry,
  Decision,
  Lease,
  Pause,
  RunRecord,
  RunStatus,
  SessionMeta,
} from '../core/types.js';

/*
 * The shapes a session takes and the store's answers come in: what a transition reads
 * and writes, the deliveries and counts a commit keeps, pages. They belong to the
 * session's rules (this layer, below the store): the transitions are written on them,
 * and the store's interface (store.ts), outbox and waiting counts build on them.
 * store.ts, outbox.ts and waiting-counts.ts export them again, where callers find them.
 */

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
 * A change of one session, as `transitions/` declares them: pure, from the session's
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

/**
 * `pending`: not sent yet; `failed`: the last attempt failed and another is due;
 * `sent`: the channel took it; `gave_up`: no attempt is left (an admin may re-send it).
 */
export type DeliveryStatus = 'pending' | 'sent' | 'failed' | 'gave_up';

/** One notification of one approval event to one recipient through one channel. */
export interface DeliveryRecord {
  /**
   * Stable across retries, crashes and re-sends (`deliveryIdOf`): receivers drop
   * duplicates by it.
   */
  deliveryId: string;
  /** The event's id: the hash of the audit line that recorded it. */
  eventId: string;
  event: ApprovalEvent;
  /** The channel's name (`webhook`, `slack`, `email`, or a host's own). */
  channel: string;
  /** `user:<id>`, `role:<name>`, or `endpoint:<name>` for a channel that sends each event once. */
  recipient: string;
  status: DeliveryStatus;
  attempts: number;
  /** While pending or failed: when the next attempt is due (a claim moves it to the claim's end). */
  nextAttemptAt?: number;
  /** Who holds the current attempt. */
  claimedBy?: string;
  lastError?: string;
  /** What the channel answered when it sent it (Slack: `<channel>:<ts>`), for later updates. */
  ref?: string;
  sentAt?: number;
  createdAt: number;
  updatedAt: number;
  /** Moves with every change (claims and settles hold by the claim's owner and the due time). */
  version: number;
}

/** How many approvals of one app's tool wait for people now, across every instance. */
export interface WaitingCount {
  app: string;
  tool: string;
  count: number;
}
