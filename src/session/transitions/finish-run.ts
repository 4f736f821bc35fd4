import type { RunEnding, SegmentEnd, SessionSnapshot, Transition } from '../session-shapes.js';
import { resumedPause } from './pause-state.js';
import { executedAudit, idle, requireLease } from './session-writes.js';

/**
 * The run ends (the session idle) with the segment's events; a pause it resumed from is
 * marked resumed. LEASE_LOST as for savePauseTransition.
 */
export function finishRunTransition(
  snapshot: SessionSnapshot,
  end: SegmentEnd,
  ending: RunEnding,
): Transition<void> {
  const run = requireLease(snapshot, end.invocationId, end.lease);
  const resumed = resumedPause(snapshot, end.invocationId);
  return {
    writes: {
      meta: idle(snapshot.meta, end.now),
      runs: [
        {
          ...run,
          status: ending.status,
          result: ending.result,
          error: ending.error,
          checkpointed: undefined,
          updatedAt: end.now,
        },
      ],
      pauses: resumed ? [{ ...resumed, status: 'resumed' }] : undefined,
      audit: [...executedAudit(resumed, end.executedCallIds, end.now), ...ending.audit],
      append: end.append,
    },
  };
}
