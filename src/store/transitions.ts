import { approvalAudit, decisionAudit, undecidedAudit } from '../core/audit.js';
import { HoldpointError } from '../core/errors.js';
import type { AuditEntry, Decision, Pause, RunRecord, SessionMeta } from '../core/types.js';
import { decisionConflict } from './check-decisions.js';
import type { DecideResult, DecisionBatch, RunEnding } from './store.js';

/** What a store reads of one session before a transition. */
export interface SessionSnapshot {
  meta: SessionMeta;
  /** The session's current (latest) pause. */
  pause?: Pause;
  /** The session's current (latest) run. */
  run?: RunRecord;
}

/** What a transition writes, all at once, for one session. */
export interface SessionWrites {
  meta: SessionMeta;
  pauses?: Pause[];
  run?: RunRecord;
  audit: AuditEntry[];
  /** Keep the pause record (a tombstone once it ends) until then. */
  pauseRetainUntil?: number;
}

/** A transition's writes and its answer; `error` is thrown after the writes commit. */
export interface Transition<T> {
  writes?: SessionWrites;
  value?: T;
  error?: HoldpointError;
}

function touch(meta: SessionMeta, patch: Partial<SessionMeta>, now: number): SessionMeta {
  return { ...meta, ...patch, updatedAt: now };
}

/** running → idle with the run ended the same way. */
function idle(snapshot: SessionSnapshot, now: number): SessionMeta {
  return touch(snapshot.meta, { status: 'idle', leaseUntil: undefined }, now);
}

/** A new run takes the session; refused while paused or held by a live lease. */
export function beginRunTransition(
  snapshot: SessionSnapshot,
  run: RunRecord,
  leaseUntil: number,
): Transition<void> {
  const { meta } = snapshot;
  if (meta.status === 'paused') {
    throw new HoldpointError(
      'SESSION_PAUSED',
      'This session is waiting for an approval; decide or cancel it first.',
      { pending_approvals: snapshot.pause?.approvals.map((a) => a.approvalId) ?? [] },
    );
  }
  if (meta.status === 'running' && (meta.leaseUntil ?? 0) > run.startedAt) {
    throw new HoldpointError('SESSION_BUSY', 'A run is in progress on this session.');
  }
  return {
    writes: {
      meta: touch(
        meta,
        { status: 'running', invocationId: run.invocationId, pauseId: undefined, leaseUntil },
        run.startedAt,
      ),
      run,
      audit: [],
    },
  };
}

/** `executed` lines for the approved confirmations of the resumed pause whose call ran. */
function executedAudit(snapshot: SessionSnapshot, callIds: string[], now: number): AuditEntry[] {
  const { pause } = snapshot;
  if (pause?.status !== 'resuming' || callIds.length === 0) return [];
  const ran = new Set(callIds);
  return pause.approvals
    .filter((a) => a.kind === 'confirmation' && ran.has(a.toolCallId))
    .filter((a) => pause.decisions.some((d) => d.approvalId === a.approvalId && d.approved))
    .map((a) => approvalAudit(pause, a, 'executed', 'agent', now));
}

/** The running run stops to wait for people. */
export function savePauseTransition(
  snapshot: SessionSnapshot,
  pause: Pause,
  audit: AuditEntry[],
  retainUntil: number,
  executedCallIds: string[],
): Transition<void> {
  const { meta, run } = snapshot;
  if (meta.status !== 'running' || meta.invocationId !== pause.invocationId || !run) {
    throw new HoldpointError('SESSION_BUSY', 'The run no longer holds this session.');
  }
  return {
    writes: {
      meta: touch(
        meta,
        { status: 'paused', pauseId: pause.pauseId, leaseUntil: undefined },
        pause.createdAt,
      ),
      pauses:
        snapshot.pause?.status === 'resuming'
          ? [{ ...snapshot.pause, status: 'resumed' }, pause]
          : [pause],
      run: { ...run, status: 'paused', updatedAt: pause.createdAt },
      audit: [...executedAudit(snapshot, executedCallIds, pause.createdAt), ...audit],
      pauseRetainUntil: retainUntil,
    },
  };
}

function resumedAudit(pause: Pause, decisions: Decision[], now: number): AuditEntry {
  return {
    at: now,
    action: 'resumed',
    sessionId: pause.sessionId,
    invocationId: pause.invocationId,
    actor: decisions.at(-1)?.decidedBy ?? 'system',
  };
}

function expiredWrites(snapshot: SessionSnapshot, pause: Pause, now: number): SessionWrites {
  return {
    meta: idle(snapshot, now),
    pauses: [{ ...pause, status: 'expired' }],
    run: snapshot.run && { ...snapshot.run, status: 'expired', updatedAt: now },
    audit: undecidedAudit(pause, 'expired', 'system', now),
  };
}

/**
 * One decision per undecided approval. When none is left, one for the first
 * approval, so the conflict check answers why (expired, cancelled, decided).
 */
function decideAll(pause: Pause, answer: Omit<Decision, 'approvalId'>): Decision[] {
  const decided = new Set(pause.decisions.map((d) => d.approvalId));
  const open = pause.approvals.filter((a) => !decided.has(a.approvalId));
  const targets =
    open.length > 0 && pause.status === 'pending' ? open : pause.approvals.slice(0, 1);
  return targets.map((a) => ({ ...answer, approvalId: a.approvalId }));
}

/** Records decisions; the one that completes the pause claims the resume. */
export function decideTransition(
  snapshot: SessionSnapshot,
  batch: DecisionBatch,
  now: number,
  leaseUntil: number,
): Transition<DecideResult> {
  const { pause } = snapshot;
  if (!pause) {
    throw new HoldpointError('NO_PENDING_APPROVAL', 'This session has no pause to decide.');
  }
  const decisions = 'decisions' in batch ? batch.decisions : decideAll(pause, batch.all);
  const conflict = decisionConflict(pause, decisions, now);
  if (conflict === 'expire') {
    return {
      writes: expiredWrites(snapshot, pause, now),
      error: new HoldpointError('APPROVAL_EXPIRED', 'The pause expired; it can no longer resume.', {
        expired_at: new Date(pause.expiresAt).toISOString(),
      }),
    };
  }
  if (conflict) throw conflict;
  const allDecisions = [...pause.decisions, ...decisions];
  const complete = allDecisions.length === pause.approvals.length;
  const next: Pause = {
    ...pause,
    decisions: allDecisions,
    status: complete ? 'resuming' : 'pending',
  };
  return {
    writes: {
      meta: complete
        ? touch(snapshot.meta, { status: 'running', leaseUntil }, now)
        : touch(snapshot.meta, {}, now),
      pauses: [next],
      run:
        complete && snapshot.run
          ? { ...snapshot.run, status: 'running', updatedAt: now }
          : undefined,
      audit: complete
        ? [...decisionAudit(pause, decisions), resumedAudit(pause, decisions, now)]
        : decisionAudit(pause, decisions),
    },
    value: { pause: next, outcome: complete ? 'claimed' : 'pending' },
  };
}

/** The run ends; a pause it resumed from is marked resumed. */
export function finishRunTransition(
  snapshot: SessionSnapshot,
  invocationId: string,
  ending: RunEnding,
  now: number,
): Transition<void> {
  const { meta, run, pause } = snapshot;
  if (meta.invocationId !== invocationId || !run || meta.status !== 'running') {
    throw new HoldpointError('SESSION_BUSY', 'The run no longer holds this session.');
  }
  return {
    writes: {
      meta: idle(snapshot, now),
      run: {
        ...run,
        status: ending.status,
        result: ending.result,
        error: ending.error,
        updatedAt: now,
      },
      pauses: pause?.status === 'resuming' ? [{ ...pause, status: 'resumed' }] : undefined,
      audit: [...executedAudit(snapshot, ending.executedCallIds ?? [], now), ...ending.audit],
    },
  };
}

/** A paused run is cancelled: nothing pending runs. */
export function cancelTransition(
  snapshot: SessionSnapshot,
  actor: string,
  reason: string | undefined,
  now: number,
): Transition<Pause> {
  const { meta, pause } = snapshot;
  if (meta.status !== 'paused' || !pause || pause.status !== 'pending') {
    throw new HoldpointError('NO_PENDING_APPROVAL', 'This session has no paused run to cancel.');
  }
  if (now >= pause.expiresAt) {
    return {
      writes: expiredWrites(snapshot, pause, now),
      error: new HoldpointError('APPROVAL_EXPIRED', 'The pause already expired.'),
    };
  }
  const cancelled: Pause = { ...pause, status: 'cancelled' };
  return {
    writes: {
      meta: idle(snapshot, now),
      pauses: [cancelled],
      run: snapshot.run && { ...snapshot.run, status: 'cancelled', updatedAt: now },
      audit: undecidedAudit(pause, 'cancelled', actor, now, reason),
    },
    value: cancelled,
  };
}

/** A pending pause past its time becomes expired; otherwise nothing changes. */
export function expireTransition(
  snapshot: SessionSnapshot,
  now: number,
): Transition<Pause | undefined> {
  const { meta, pause } = snapshot;
  if (meta.status !== 'paused' || !pause || pause.status !== 'pending' || now < pause.expiresAt) {
    return {};
  }
  const writes = expiredWrites(snapshot, pause, now);
  return { writes, value: writes.pauses?.[0] };
}
