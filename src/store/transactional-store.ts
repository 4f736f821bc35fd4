import { setTimeout as sleep } from 'node:timers/promises';
import type { BaseSessionService } from '@google/adk';
import type { EffectLedger } from '../core/effect-ledger.js';
import { HoldpointError } from '../core/errors.js';
import type { AuditEntry, Pause, RunRecord, SessionMeta } from '../core/types.js';
import type { RunRelay } from './run-relay.js';
import type {
  CreatedSession,
  DecideResult,
  DecisionBatch,
  HoldpointStore,
  RunEnding,
} from './store.js';
import {
  beginRunTransition,
  cancelTransition,
  decideTransition,
  expireTransition,
  finishRunTransition,
  type SessionSnapshot,
  type SessionWrites,
  savePauseTransition,
  type Transition,
} from './transitions.js';

/** A snapshot and the version it was read at; a commit succeeds only at that version. */
export interface VersionedSnapshot {
  snapshot: SessionSnapshot;
  version: number;
  /**
   * From this process's own copy, not read just now: good for a compare-and-set,
   * never for an answer that writes nothing.
   */
  cached?: boolean;
}

const MAX_ATTEMPTS = 100;

/**
 * The state machine of every store: read a session's snapshot, compute the
 * transition, commit it only if nobody changed the session in between (compare
 * and set on a per-session version), retry otherwise. Stores provide the read and
 * the atomic commit; the rules live once, in transitions.ts. A store may answer a
 * read from a copy it keeps: a transition computed on it counts only once its
 * commit succeeds, anything else is computed again on a fresh read.
 */
export abstract class TransactionalStore implements HoldpointStore {
  abstract readonly kind: 'memory' | 'redis';
  abstract readonly sessions: BaseSessionService;
  abstract readonly effects: EffectLedger;
  abstract readonly relay: RunRelay;

  /** The session's snapshot; `fresh` forbids answering from a kept copy. */
  protected abstract readSnapshot(
    sessionId: string,
    fresh: boolean,
  ): Promise<VersionedSnapshot | undefined>;
  /** Writes everything at once if the session is still at `read.version`; false otherwise. */
  protected abstract commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
  ): Promise<boolean>;

  abstract getMeta(sessionId: string): Promise<SessionMeta | undefined>;
  abstract getPause(sessionId: string, pauseId: string): Promise<Pause | undefined>;
  abstract getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined>;
  abstract listPausedSessions(): Promise<string[]>;
  abstract findApproval(approvalId: string): Promise<string | undefined>;
  abstract listAudit(sessionId: string): Promise<AuditEntry[]>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;

  private async transact<T>(
    sessionId: string,
    transition: (snapshot: SessionSnapshot) => Transition<T>,
  ): Promise<T> {
    let fresh = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const read = await this.readSnapshot(sessionId, fresh);
      if (!read) {
        throw new HoldpointError('SESSION_NOT_FOUND', `No session ${sessionId}.`, {
          session_id: sessionId,
        });
      }
      let result: Transition<T>;
      try {
        result = transition(read.snapshot);
      } catch (error) {
        if (!read.cached) throw error;
        fresh = true;
        continue;
      }
      if (!result.writes && read.cached) {
        fresh = true;
        continue;
      }
      if (result.writes && !(await this.commit(sessionId, read, result.writes))) {
        // Someone else changed the session between our read and commit: read again
        // (at once when only a kept copy was out of date).
        if (!read.cached) await sleep(Math.random() * Math.min(50, 2 ** attempt));
        fresh = true;
        continue;
      }
      if (result.error) throw result.error;
      return result.value as T;
    }
    throw new HoldpointError('SESSION_BUSY', 'The session is changing too often; try again.');
  }

  /**
   * Creates a session for `run` (its id, app and user) and begins the run on it.
   * Stores that can do both in one atomic step override this.
   */
  async createRunningSession(run: RunRecord, leaseUntil: number): Promise<CreatedSession> {
    const session = await this.sessions.createSession({
      appName: run.app,
      userId: run.userId,
      sessionId: run.sessionId,
    });
    await this.beginRun(run, leaseUntil);
    return { session, stored: Promise.resolve() };
  }

  beginRun(run: RunRecord, leaseUntil: number): Promise<void> {
    return this.transact(run.sessionId, (s) => beginRunTransition(s, run, leaseUntil));
  }

  savePause(
    pause: Pause,
    audit: AuditEntry[],
    retainUntil: number,
    executedCallIds: string[] = [],
  ): Promise<void> {
    return this.transact(pause.sessionId, (s) =>
      savePauseTransition(s, pause, audit, retainUntil, executedCallIds),
    );
  }

  decide(
    sessionId: string,
    batch: DecisionBatch,
    now: number,
    leaseUntil: number,
  ): Promise<DecideResult> {
    return this.transact(sessionId, (s) => decideTransition(s, batch, now, leaseUntil));
  }

  /** Answers as `decide`: stores that can answer before their claim is stored override it. */
  decideEarly(
    sessionId: string,
    batch: DecisionBatch,
    now: number,
    leaseUntil: number,
  ): Promise<DecideResult> {
    return this.decide(sessionId, batch, now, leaseUntil);
  }

  finishRun(
    sessionId: string,
    invocationId: string,
    ending: RunEnding,
    now: number,
  ): Promise<void> {
    return this.transact(sessionId, (s) => finishRunTransition(s, invocationId, ending, now));
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
