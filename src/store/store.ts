import type { BaseSessionService, Session } from '@google/adk';
import type { EffectLedger } from '../core/effect-ledger.js';
import type {
  AuditEntry,
  Decision,
  Pause,
  RunRecord,
  RunStatus,
  SessionMeta,
} from '../core/types.js';
import type { RunRelay } from './run-relay.js';

/** What `decide` did: decisions recorded, and whether the caller now holds the resume. */
export interface DecideResult {
  pause: Pause;
  /** `claimed`: every approval is decided and this caller must resume the run. */
  outcome: 'pending' | 'claimed';
  /** Set when `decideEarly` answered `claimed` before the claim was stored. */
  early?: EarlyClaim;
}

/**
 * A claim a store answered as soon as it sent it. The resumed run may start; no tool
 * or model call of it may happen before `stored` says the claim holds.
 */
export interface EarlyClaim {
  /**
   * true once the claim is stored; false when another writer changed the session
   * first, so nothing of it was written (decide again); rejects when the store failed.
   */
  stored: Promise<boolean>;
  /**
   * Forgets what the session's run appended since the claim, once that run has
   * stopped; a claim that did not hold must be discarded, as the session's other
   * transitions in this process wait until it is.
   */
  discard(): void;
}

/** How a run ended, written atomically with the session going idle. */
export interface RunEnding {
  status: Extract<RunStatus, 'completed' | 'failed'>;
  result?: string;
  error?: string;
  audit: AuditEntry[];
  /** Tool calls that produced a result in the last segment (for `executed` audit lines). */
  executedCallIds?: string[];
}

/**
 * A session created for a run: usable at once, stored once `stored` resolves (it
 * rejects when the session never will be). Nothing with an effect may run before.
 */
export interface CreatedSession {
  session: Session;
  stored: Promise<void>;
}

/** Decisions to record: one by one, or one answer for every undecided approval. */
export type DecisionBatch = { decisions: Decision[] } | { all: Omit<Decision, 'approvalId'> };

/**
 * Durable state of Holdpoint: ADK sessions and events (through `sessions`), plus
 * runs, pauses, decisions, the audit log and the effect ledger. Every method that
 * changes more than one record does it atomically, so two processes sharing the
 * store can never both resume a pause or both record a decision.
 */
export interface HoldpointStore {
  readonly kind: 'memory' | 'redis';
  /** ADK's session service over this store. Creating a session also creates its meta. */
  readonly sessions: BaseSessionService;
  readonly effects: EffectLedger;
  /** Tells waiters in any process what happens to a session's run. */
  readonly relay: RunRelay;

  /**
   * Creates a session with `run.sessionId` (new, made by the caller: nobody else can
   * know it yet), `run.app` and `run.userId` and begins `run` on it, as
   * `createSession` then `beginRun` would. A store may answer before the session is
   * durable: the run may start, and its tools and first commit wait for `stored`.
   */
  createRunningSession(run: RunRecord, leaseUntil: number): Promise<CreatedSession>;
  /** The Holdpoint meta of a session, or undefined when it does not exist. */
  getMeta(sessionId: string): Promise<SessionMeta | undefined>;
  /**
   * Marks the session running a new run. Throws SESSION_PAUSED when it waits for
   * people and SESSION_BUSY when another process holds a live lease on it.
   */
  beginRun(run: RunRecord, leaseUntil: number): Promise<void>;
  /**
   * Stores a pause (running → paused), its approval index and audit lines, plus an
   * `executed` line for each approved call of the pause it resumed from that ran.
   */
  savePause(
    pause: Pause,
    audit: AuditEntry[],
    retainUntil: number,
    executedCallIds?: string[],
  ): Promise<void>;
  /**
   * Records decisions, all or none. Throws APPROVAL_NOT_FOUND, ALREADY_DECIDED,
   * APPROVAL_EXPIRED (the pause becomes expired and audited), PAUSE_CANCELLED,
   * NO_PENDING_APPROVAL. When the last approval is decided the pause becomes
   * `resuming` and the session running under `leaseUntil`: only one caller ever
   * gets `claimed`.
   */
  decide(
    sessionId: string,
    batch: DecisionBatch,
    now: number,
    leaseUntil: number,
  ): Promise<DecideResult>;
  /**
   * `decide`, except that a store may answer `claimed` as soon as it has sent the
   * claim, with `early` saying whether it holds; others answer as `decide` does.
   */
  decideEarly(
    sessionId: string,
    batch: DecisionBatch,
    now: number,
    leaseUntil: number,
  ): Promise<DecideResult>;
  /** Ends the run (session idle, pause resumed) and writes its audit lines. */
  finishRun(sessionId: string, invocationId: string, ending: RunEnding, now: number): Promise<void>;
  /** Cancels the paused run of a session. Throws NO_PENDING_APPROVAL when it is not paused. */
  cancel(sessionId: string, actor: string, reason: string | undefined, now: number): Promise<Pause>;
  /** Expires the session's pause if it is past its time; returns the pause when it did. */
  expire(sessionId: string, now: number): Promise<Pause | undefined>;

  getPause(sessionId: string, pauseId: string): Promise<Pause | undefined>;
  getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined>;
  /** Session ids that have a pending pause, oldest expiry first. */
  listPausedSessions(): Promise<string[]>;
  /** The session an approval id belongs to. */
  findApproval(approvalId: string): Promise<string | undefined>;
  listAudit(sessionId: string): Promise<AuditEntry[]>;

  ping(): Promise<void>;
  close(): Promise<void>;
}
