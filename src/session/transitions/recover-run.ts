import { HoldpointError } from '../../core/errors.js';
import type { AuditEntry, Lease, RunRecord } from '../../core/types.js';
import type { SessionSnapshot, Transition } from '../session-shapes.js';
import { isInterrupted, touch } from './session-writes.js';

/**
 * An interrupted run is taken over by a new segment under `lease`, audited `recovered`
 * by `actor`, to be driven on from what was stored last; answers the session as it now
 * stands. RUN_NOT_INTERRUPTED unless `invocationId` is the session's current run, not
 * ended, and its lease lapsed.
 */
export function recoverRunTransition(
  snapshot: SessionSnapshot,
  invocationId: string,
  lease: Lease,
  actor: string,
  now: number,
): Transition<SessionSnapshot> {
  const { meta, run } = snapshot;
  if (meta.invocationId !== invocationId || !run || !isInterrupted(meta, now)) {
    const status = meta.invocationId === invocationId && run ? run.status : 'ended';
    throw new HoldpointError(
      'RUN_NOT_INTERRUPTED',
      status === 'running'
        ? `Run ${invocationId} is still running; it can be resumed once its lease lapses.`
        : `Run ${invocationId} is not interrupted (it is ${status}).`,
      { session_id: meta.sessionId, invocation_id: invocationId, status },
    );
  }
  const recovered: AuditEntry = {
    at: now,
    action: 'recovered',
    sessionId: meta.sessionId,
    invocationId,
    actor,
    reason: 'The process driving the run stopped; the run goes on from what was stored.',
  };
  const next: SessionSnapshot = {
    meta: touch(meta, { lease }, now),
    pause: snapshot.pause,
    run: { ...run, updatedAt: now },
  };
  return {
    writes: { meta: next.meta, runs: [next.run as RunRecord], audit: [recovered] },
    value: next,
  };
}
