import type { SegmentEnd, SessionSnapshot, Transition } from '../session-shapes.js';
import { resumedPause } from './pause-state.js';
import { executedAudit, requireLease, touch } from './session-writes.js';

/**
 * The running segment stores what it appended so far (a workflow step ended) and
 * keeps the session: a crash from here on loses nothing before this point. LEASE_LOST
 * as for savePauseTransition.
 */
export function checkpointTransition(snapshot: SessionSnapshot, end: SegmentEnd): Transition<void> {
  const run = requireLease(snapshot, end.invocationId, end.lease);
  const resumed = resumedPause(snapshot, end.invocationId);
  return {
    writes: {
      meta: touch(snapshot.meta, {}, end.now),
      runs: [{ ...run, checkpointed: true, updatedAt: end.now }],
      audit: executedAudit(resumed, end.executedCallIds, end.now),
      append: end.append,
    },
  };
}
