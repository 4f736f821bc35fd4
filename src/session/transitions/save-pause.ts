import type { AuditEntry, Pause } from '../../core/types.js';
import type { SegmentEnd, SessionSnapshot, Transition } from '../session-shapes.js';
import { resumedPause } from './pause-state.js';
import { executedAudit, requireLease, touch } from './session-writes.js';

/**
 * The running segment stops to wait for people (running → paused): the pause, with the
 * segment's events, its approvals (indexed by the store) and audit lines. LEASE_LOST
 * when the segment no longer holds the session.
 */
export function savePauseTransition(
  snapshot: SessionSnapshot,
  end: SegmentEnd,
  pause: Pause,
  audit: AuditEntry[],
  retainUntil: number,
): Transition<void> {
  const run = requireLease(snapshot, end.invocationId, end.lease);
  const resumed = resumedPause(snapshot, end.invocationId);
  return {
    writes: {
      meta: touch(
        snapshot.meta,
        { status: 'paused', pauseId: pause.pauseId, lease: undefined },
        end.now,
      ),
      pauses: resumed ? [{ ...resumed, status: 'resumed' }, pause] : [pause],
      runs: [{ ...run, status: 'paused', checkpointed: undefined, updatedAt: end.now }],
      audit: [...executedAudit(resumed, end.executedCallIds, end.now), ...audit],
      pauseRetainUntil: retainUntil,
      append: end.append,
    },
  };
}
