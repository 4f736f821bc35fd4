import { HoldpointError } from '../../core/errors.js';
import type { RunRecord } from '../../core/types.js';
import type { SessionSnapshot, Transition } from '../session-shapes.js';
import { resumedPause } from './pause-state.js';
import { idle, isInterrupted } from './session-writes.js';

/**
 * An interrupted run is given up: recorded cancelled (with the pause it was resuming),
 * its session free for new runs. A call it left without a response is answered when
 * the next run starts (see closingEvent), with what the effect ledger knows of it.
 */
export function cancelInterruptedTransition(
  snapshot: SessionSnapshot,
  invocationId: string,
  actor: string,
  reason: string | undefined,
  now: number,
): Transition<RunRecord> {
  const { meta, run } = snapshot;
  if (meta.invocationId !== invocationId || !run || !isInterrupted(meta, now)) {
    throw new HoldpointError(
      'RUN_NOT_INTERRUPTED',
      `Run ${invocationId} is not interrupted; only an interrupted run is cancelled by its id.`,
      { session_id: meta.sessionId, invocation_id: invocationId, status: run?.status ?? 'ended' },
    );
  }
  const cancelled: RunRecord = {
    ...run,
    status: 'cancelled',
    checkpointed: undefined,
    updatedAt: now,
  };
  const resumed = resumedPause(snapshot, invocationId);
  return {
    writes: {
      meta: idle(meta, now),
      runs: [cancelled],
      pauses: resumed ? [{ ...resumed, status: 'cancelled' }] : undefined,
      audit: [
        {
          at: now,
          action: 'cancelled',
          sessionId: meta.sessionId,
          invocationId,
          actor,
          reason: reason ?? 'The interrupted run was given up.',
        },
      ],
    },
    value: cancelled,
  };
}
