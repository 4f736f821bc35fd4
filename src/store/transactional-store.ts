import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Session } from '@google/adk';
import type { EffectLedger } from '../core/effect-ledger.js';
import {
  type ErrorCode,
  HoldpointError,
  isHoldpointError,
  sessionExists,
  sessionNotFound,
} from '../core/errors.js';
import type { AuditEntry, Lease, Pause, RunRecord } from '../core/types.js';
import { chainWrites, newSessionWrites } from '../session/transitions/index.js';
import type { Delegations } from './delegations.js';
import type { Grants } from './grants.js';
import { INBOX_CHANNEL, inboxNews } from './inbox-news.js';
import type { Outbox } from './outbox.js';
import type { RateCounters } from './rate-counters.js';
import type { RequestRecords } from './request-records.js';
import type { RunRelay } from './run-relay.js';
import type {
  CommitObserver,
  HoldpointStore,
  NewSession,
  Page,
  PageCursor,
  RoundTripObserver,
  RunCounts,
  SessionSnapshot,
  SessionTrail,
  SessionTransition,
  SessionWrites,
  StoreKind,
  StoreRoundTrip,
  StoreStats,
  Transition,
} from './store.js';
import type { UserMemories } from './user-memories.js';
import type { WaitingCount } from './waiting-counts.js';
import { WriteReadiness } from './write-readiness.js';

/**
 * A snapshot and the version it was read at; a commit succeeds only at that version.
 * `commitIds` name the latest commits that wrote it (the last one last), where the
 * store keeps them: a store whose replies can be lost (OUTCOME_UNKNOWN) must.
 */
export interface VersionedSnapshot {
  snapshot: SessionSnapshot;
  /** 1 for a new session; every commit moves it on by one. */
  version: number;
  commitIds?: string[];
}

/**
 * How many of a session's latest commit ids are kept: enough that a commit whose reply
 * was lost is still recognised after others wrote the session meanwhile.
 */
const RECENT_COMMITS = 8;

const MAX_ATTEMPTS = 100;
/** How often a commit whose reply was lost reads the session again to learn its fate. */
const SETTLE_POLL_MS = 100;

/**
 * OUTCOME_UNKNOWN for a commit on `sessionId` whose reply was lost and whose fate could
 * not be read before the store stopped answering for good.
 */
function commitUnknown(sessionId: string, lost: HoldpointError): HoldpointError {
  return new HoldpointError(
    'OUTCOME_UNKNOWN',
    `${lost.message} Session ${sessionId} could not be read since, so whether it was stored is unknown.`,
    { session_id: sessionId },
  );
}

/**
 * The state machine of every store, in `apply`: read a session's snapshot, compute the
 * transition, commit it only if nobody changed the session in between (compare
 * and set on a per-session version), read again and retry otherwise. Stores
 * provide the read and the atomic commit; the rules live once, in session/transitions/.
 * Every transition's audit lines are chained onto the head it read (chainWrites)
 * before that commit, so the chain moves with the version or not at all.
 * Nothing a transition decides is seen by anyone before its commit is stored.
 */
export abstract class TransactionalStore implements HoldpointStore {
  abstract readonly kind: StoreKind;
  abstract readonly effects: EffectLedger;
  abstract readonly requests: RequestRecords;
  abstract readonly rates: RateCounters;
  abstract readonly relay: RunRelay;
  abstract readonly memories: UserMemories;
  abstract readonly delegations: Delegations;
  abstract readonly outbox: Outbox;
  abstract readonly grants: Grants;

  /** The session's snapshot and its version, read now. */
  protected abstract readSnapshot(sessionId: string): Promise<VersionedSnapshot | undefined>;
  /**
   * Writes everything at once, keeping `commitIds` as the session's latest commits (this
   * one last) if its replies can be lost, if the session is still at `read.version`;
   * false otherwise.
   * OUTCOME_UNKNOWN when the reply was lost after the write was sent; STORE_UNAVAILABLE
   * only when nothing was sent.
   */
  protected abstract commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
    commitIds: string[],
  ): Promise<boolean>;
  /** Writes a new session as its first commit; false when its id is taken. Fails as commit. */
  protected abstract insert(
    session: NewSession,
    writes: SessionWrites,
    commitIds: string[],
  ): Promise<boolean>;
  /**
   * What follows a commit that was stored though its reply was lost (the work a store
   * does after a commit it heard back from), done once that is known.
   */
  protected async afterSettled(
    _sessionId: string,
    _read: VersionedSnapshot,
    _writes: SessionWrites,
  ): Promise<void> {}

  /**
   * The session as the commit of `writes` on `read` stored it, as readSnapshot would read
   * it back (what a trail holds next); undefined when its latest pause or run is neither
   * written nor read (then it is read when needed). A store that keeps its records as
   * JSON may answer from what it kept instead of copying `writes` again.
   */
  protected committedSnapshot(
    _sessionId: string,
    read: VersionedSnapshot | undefined,
    writes: SessionWrites,
    commitIds: string[],
  ): VersionedSnapshot | undefined {
    const { meta } = writes;
    const before = read?.snapshot;
    const pause =
      writes.pauses?.find((p) => p.pauseId === meta.pauseId) ??
      (before?.pause?.pauseId === meta.pauseId ? before?.pause : undefined);
    const run =
      writes.runs?.find((r) => r.invocationId === meta.invocationId) ??
      (before?.run?.invocationId === meta.invocationId ? before?.run : undefined);
    if ((meta.pauseId && !pause) || (meta.invocationId && !run)) return undefined;
    // A copy, through JSON as every store keeps its records (so it is what a read would
    // answer): what the caller does with the writes afterwards cannot reach it.
    const snapshot = JSON.parse(JSON.stringify({ meta, pause, run })) as SessionSnapshot;
    return { snapshot, version: (read?.version ?? 0) + 1, commitIds };
  }

  /**
   * Whether the session keeps the ids of its latest commits: a store whose replies can be
   * lost must, to learn a lost commit's fate (OUTCOME_UNKNOWN); one in process need not.
   */
  protected readonly keepsCommitIds: boolean = true;

  /** A new commit's ids to keep: `commitId` after the latest of `read`, or none. */
  private commitIdsAfter(read: VersionedSnapshot | undefined, commitId: string): string[] {
    if (!this.keepsCommitIds) return [];
    return [...(read?.commitIds ?? []).slice(1 - RECENT_COMMITS), commitId];
  }

  /**
   * How long a commit whose reply was lost waits for the store to answer again, to
   * learn whether it was stored, before its caller is told OUTCOME_UNKNOWN.
   */
  protected settleMs = 5_000;
  abstract loadSession(
    sessionId: string,
    app: string,
    userId: string,
  ): Promise<Session | undefined>;
  abstract getPause(sessionId: string, pauseId: string): Promise<Pause | undefined>;
  abstract getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined>;
  abstract findApproval(approvalId: string): Promise<string | undefined>;
  abstract findRun(invocationId: string): Promise<string | undefined>;
  abstract listInterrupted(
    query: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>>;
  abstract listDuePauses(now: number, limit: number): Promise<string[]>;
  abstract listDueSla(now: number, limit: number): Promise<string[]>;
  abstract listPaused(
    query: { audiences?: string[]; limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>>;
  abstract listUserSessions(
    userId: string,
    query: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>>;
  abstract listAudit(sessionId: string, offset: number, limit: number): Promise<AuditEntry[]>;
  abstract countWaiting(): Promise<WaitingCount[]>;
  abstract countRuns(now: number): Promise<RunCounts>;
  abstract takeSweepTurn(owner: string, ms: number): Promise<boolean>;
  abstract stats(): Promise<StoreStats>;
  abstract purgeExpired(now: number, limit: number): Promise<number>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
  /**
   * One small write of the store's own, stored or refused as a commit would be: what
   * `writable` tries after a commit was refused, to learn whether writes go through again.
   */
  protected abstract probeWrite(): Promise<void>;

  /** What the commits last came to: `writable` answers from it. */
  private readonly writes = new WriteReadiness(() => this.probeWrite());

  writable(): Promise<void> {
    return this.writes.check();
  }

  /**
   * The snapshots `getSnapshot` handed out and the versions they were read at, so a
   * caller's snapshot can be the first read of its transition (`apply`'s `seen`).
   */
  private readonly handedOut = new WeakMap<SessionSnapshot, VersionedSnapshot>();
  private readonly observers = new Set<CommitObserver>();

  observeCommits(observer: CommitObserver): () => void {
    const own = (before: SessionSnapshot, writes: SessionWrites) => observer(before, writes);
    this.observers.add(own);
    return () => this.observers.delete(own);
  }

  private readonly roundTripObservers = new Set<RoundTripObserver>();

  observeRoundTrips(observer: RoundTripObserver): () => void {
    const own: RoundTripObserver = (roundTrip, seconds, failure) =>
      observer(roundTrip, seconds, failure);
    this.roundTripObservers.add(own);
    return () => this.roundTripObservers.delete(own);
  }

  /** `run`, one round trip to the storage, told to the round-trip observers when it ends. */
  private async timed<T>(roundTrip: StoreRoundTrip, run: () => Promise<T>): Promise<T> {
    if (this.roundTripObservers.size === 0) return run();
    const start = performance.now();
    const tell = (failure?: ErrorCode) => {
      const seconds = (performance.now() - start) / 1000;
      for (const observer of this.roundTripObservers) {
        try {
          observer(roundTrip, seconds, failure);
        } catch {
          // An observer only derives (metrics): the round trip's caller gets its answer.
        }
      }
    };
    try {
      const value = await run();
      tell();
      return value;
    } catch (error) {
      tell(isHoldpointError(error) ? error.code : 'INTERNAL');
      throw error;
    }
  }

  /** Tells the observers of a stored commit; what they do never fails the commit's caller. */
  private committed(before: SessionSnapshot, writes: SessionWrites): void {
    for (const observer of this.observers) {
      try {
        observer(before, writes);
      } catch {
        // An observer only derives (metrics); the commit stands whatever it throws.
      }
    }
  }

  async getSnapshot(sessionId: string): Promise<SessionSnapshot | undefined> {
    return this.handOut(await this.timed('read', () => this.readSnapshot(sessionId)));
  }

  async createSession(
    session: NewSession,
    begin?: { run: RunRecord; lease: Lease },
    trail?: SessionTrail,
  ) {
    const writes = newSessionWrites(session, begin);
    const commitId = this.keepsCommitIds ? randomUUID() : '';
    const commitIds = this.commitIdsAfter(undefined, commitId);
    const insert = () =>
      this.writes.track(
        () => this.timed('commit', () => this.insert(session, writes, commitIds)),
        (inserted) => inserted,
      );
    const created = await insert().catch((error: unknown) => {
      if (!isHoldpointError(error, 'OUTCOME_UNKNOWN')) throw error;
      // Stored, or never will be: then it is written again.
      return this.wasStored(session.sessionId, commitId, error).then(
        (stored) => stored || insert(),
      );
    });
    if (!created) throw sessionExists(session.sessionId);
    // A new session's commit is observed as any other: before it, the session had no run
    // and no pause (its meta is the new one's: nothing before it was chained).
    this.committed({ meta: writes.meta }, writes);
    if (trail) {
      trail.snapshot = this.handOut(
        this.committedSnapshot(session.sessionId, undefined, writes, commitIds),
      );
    }
  }

  /** Marks `read` as handed out, so `apply` may take it as its first read. */
  private handOut(read: VersionedSnapshot | undefined): SessionSnapshot | undefined {
    if (read) this.handedOut.set(read.snapshot, read);
    return read?.snapshot;
  }

  /**
   * Commits `writes`, learning after a lost reply whether they were stored; once stored,
   * tells the inboxes when a pause's pending state changed (never before). Answers the
   * ids the session keeps as its latest commits once stored, undefined when not stored.
   */
  private async store(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
  ): Promise<string[] | undefined> {
    const commitId = this.keepsCommitIds ? randomUUID() : '';
    const commitIds = this.commitIdsAfter(read, commitId);
    let stored: boolean;
    try {
      stored = await this.writes.track(
        () => this.timed('commit', () => this.commit(sessionId, read, writes, commitIds)),
        (committed) => committed,
      );
    } catch (error) {
      if (!isHoldpointError(error, 'OUTCOME_UNKNOWN')) throw error;
      // Not stored counts as a lost race: the transition is computed again.
      stored = await this.wasStored(sessionId, commitId, error);
      if (stored) await this.afterSettled(sessionId, read, writes);
    }
    const news = stored ? inboxNews(read.snapshot, writes) : undefined;
    if (news) this.relay.publish(INBOX_CHANNEL, news);
    return stored ? commitIds : undefined;
  }

  /**
   * Whether commit `commitId`, whose reply was `lost`, was stored: the session is read
   * again once the store answers (for at most settleMs). It was stored when the session
   * lists its id among its latest commits; otherwise it never will be, since a lost write is never sent again
   * and one connection answers in order. OUTCOME_UNKNOWN when the store stays away.
   */
  private async wasStored(
    sessionId: string,
    commitId: string,
    lost: HoldpointError,
  ): Promise<boolean> {
    const deadline = Date.now() + this.settleMs;
    for (;;) {
      try {
        const read = await this.timed('read', () => this.readSnapshot(sessionId));
        return read?.commitIds?.includes(commitId) ?? false;
      } catch (error) {
        const away =
          isHoldpointError(error, 'STORE_UNAVAILABLE') || isHoldpointError(error, 'STORE_BUSY');
        if (!away || Date.now() >= deadline) {
          throw commitUnknown(sessionId, lost);
        }
        await sleep(SETTLE_POLL_MS);
      }
    }
  }

  /**
   * Runs `transition` as a compare-and-set on the session: on `seen` first, when the
   * caller read it with getSnapshot or holds it in a trail (a stale one simply loses the
   * race, and a refusal on it is asked again of what is read), then on what is read,
   * until a commit holds; a trail is left holding the session as that commit stored it.
   */
  async apply<A extends unknown[], T>(
    sessionId: string,
    transition: SessionTransition<A, T>,
    args: A,
    seen?: SessionSnapshot | SessionTrail,
  ): Promise<T> {
    const trail = seen && !('meta' in seen) ? seen : undefined;
    const first = trail ? trail.snapshot : (seen as SessionSnapshot | undefined);
    let known = first && this.handedOut.get(first);
    if (known?.snapshot.meta.sessionId !== sessionId) known = undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const handed = known !== undefined;
      const read = known ?? (await this.timed('read', () => this.readSnapshot(sessionId)));
      known = undefined;
      if (!read) {
        throw sessionNotFound(sessionId);
      }
      let result: Transition<T>;
      try {
        result = transition(read.snapshot, ...args);
      } catch (error) {
        // A refusal holds only on what is read now: a handed snapshot may be stale.
        if (handed) continue;
        throw error;
      }
      if (handed && result.error && !result.writes) continue;
      const writes = result.writes && chainWrites(read.snapshot.meta.auditHead, result.writes);
      // Planned on the chained lines (an event's id is its line's hash), in the same
      // compare-and-set: the deliveries are stored with the commit or not at all.
      const deliveries = writes && this.outbox.planner?.(read.snapshot, writes);
      if (writes && deliveries?.length) writes.deliveries = deliveries;
      const stored = writes && (await this.store(sessionId, read, writes));
      if (writes && !stored) {
        // Someone else changed the session between our read and commit: read again.
        await sleep(Math.random() * Math.min(50, 2 ** attempt));
        continue;
      }
      if (writes) this.committed(read.snapshot, writes);
      if (trail) {
        trail.snapshot = writes
          ? this.handOut(this.committedSnapshot(sessionId, read, writes, stored ?? []))
          : this.handOut(read);
      }
      if (result.error) throw result.error;
      return result.value as T;
    }
    throw new HoldpointError('SESSION_BUSY', 'The session is changing too often; try again.');
  }
}
