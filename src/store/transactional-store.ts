import { setTimeout as sleep } from 'node:timers/promises';
import type { Session } from '@google/adk';
import type { EffectLedger } from '../core/effect-ledger.js';
import { HoldpointError, sessionNotFound } from '../core/errors.js';
import type { AuditEntry, Lease, Pause, RunRecord } from '../core/types.js';
import type { RequestRecords } from './request-records.js';
import type { RunRelay } from './run-relay.js';
import type {
  DecideResult,
  DecisionBatch,
  HoldpointStore,
  NewSession,
  Page,
  PageCursor,
  RunEnding,
  SegmentEnd,
  SessionSnapshot,
} from './store.js';
import {
  beginRunTransition,
  cancelInterruptedTransition,
  cancelTransition,
  checkpointTransition,
  decideTransition,
  expireTransition,
  finishRunTransition,
  recoverRunTransition,
  renewLeaseTransition,
  type SessionWrites,
  savePauseTransition,
  type Transition,
} from './transitions.js';

/** A snapshot and the version it was read at; a commit succeeds only at that version. */
export interface VersionedSnapshot {
  snapshot: SessionSnapshot;
  version: number;
}

const MAX_ATTEMPTS = 100;

/**
 * The state machine of every store: read a session's snapshot, compute the
 * transition, commit it only if nobody changed the session in between (compare
 * and set on a per-session version), read again and retry otherwise. Stores
 * provide the read and the atomic commit; the rules live once, in transitions.ts.
 * Nothing a transition decides is seen by anyone before its commit is stored.
 */
export abstract class TransactionalStore implements HoldpointStore {
  abstract readonly kind: 'memory' | 'redis';
  abstract readonly effects: EffectLedger;
  abstract readonly requests: RequestRecords;
  abstract readonly relay: RunRelay;

  /** The session's snapshot and its version, read now. */
  protected abstract readSnapshot(sessionId: string): Promise<VersionedSnapshot | undefined>;
  /** Writes everything at once if the session is still at `read.version`; false otherwise. */
  protected abstract commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
  ): Promise<boolean>;

  abstract createSession(
    session: NewSession,
    begin?: { run: RunRecord; lease: Lease },
  ): Promise<void>;
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
  abstract listPaused(
    query: { userId?: string; limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>>;
  abstract listAudit(sessionId: string, offset: number, limit: number): Promise<AuditEntry[]>;
  abstract claimSweep(owner: string, ms: number): Promise<boolean>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;

  async getSnapshot(sessionId: string): Promise<SessionSnapshot | undefined> {
    return (await this.readSnapshot(sessionId))?.snapshot;
  }

  private async transact<T>(
    sessionId: string,
    transition: (snapshot: SessionSnapshot) => Transition<T>,
  ): Promise<T> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const read = await this.readSnapshot(sessionId);
      if (!read) {
        throw sessionNotFound(sessionId);
      }
      const result = transition(read.snapshot);
      if (result.writes && !(await this.commit(sessionId, read, result.writes))) {
        // Someone else changed the session between our read and commit: read again.
        await sleep(Math.random() * Math.min(50, 2 ** attempt));
        continue;
      }
      if (result.error) throw result.error;
      return result.value as T;
    }
    throw new HoldpointError('SESSION_BUSY', 'The session is changing too often; try again.');
  }

  beginRun(run: RunRecord, lease: Lease): Promise<void> {
    return this.transact(run.sessionId, (s) => beginRunTransition(s, run, lease));
  }

  renewLease(sessionId: string, invocationId: string, lease: Lease): Promise<void> {
    return this.transact(sessionId, (s) => renewLeaseTransition(s, invocationId, lease));
  }

  savePause(
    end: SegmentEnd,
    pause: Pause,
    audit: AuditEntry[],
    retainUntil: number,
  ): Promise<void> {
    return this.transact(end.sessionId, (s) =>
      savePauseTransition(s, end, pause, audit, retainUntil),
    );
  }

  checkpoint(end: SegmentEnd): Promise<void> {
    return this.transact(end.sessionId, (s) => checkpointTransition(s, end));
  }

  finishRun(end: SegmentEnd, ending: RunEnding): Promise<void> {
    return this.transact(end.sessionId, (s) => finishRunTransition(s, end, ending));
  }

  decide(
    sessionId: string,
    batch: DecisionBatch,
    now: number,
    lease: Lease,
  ): Promise<DecideResult> {
    return this.transact(sessionId, (s) => decideTransition(s, batch, now, lease));
  }

  recoverRun(
    sessionId: string,
    invocationId: string,
    lease: Lease,
    actor: string,
    now: number,
  ): Promise<SessionSnapshot> {
    return this.transact(sessionId, (s) =>
      recoverRunTransition(s, invocationId, lease, actor, now),
    );
  }

  cancelInterrupted(
    sessionId: string,
    invocationId: string,
    actor: string,
    reason: string | undefined,
    now: number,
  ): Promise<RunRecord> {
    return this.transact(sessionId, (s) =>
      cancelInterruptedTransition(s, invocationId, actor, reason, now),
    );
  }

  cancel(
    sessionId: string,
    actor: string,
    reason: string | undefined,
    now: number,
  ): Promise<Pause> {
    return this.transact(sessionId, (s) => cancelTransition(s, actor, reason, now));
  }

  expire(sessionId: string, now: number): Promise<Pause | undefined> {
    return this.transact(sessionId, (s) => expireTransition(s, now));
  }
}
