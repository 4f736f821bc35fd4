import { HoldpointError } from '../../core/errors.js';
import { pendingOutcome, type RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';

/**
 * The answer to a request made again after its first reply was lost (or said the
 * outcome was unknown), once the store shows the first one was stored: the run's
 * state now. Completed: its outcome (artifacts stay in the history). Waiting for
 * people: its pending approvals. Failed: RUN_FAILED. Cancelled or expired:
 * PAUSE_CANCELLED or APPROVAL_EXPIRED. Still running: OUTCOME_UNKNOWN, as its end is
 * not known yet (it goes on, or is resumed by its invocation id once interrupted).
 */
export async function runState(
  ctx: RuntimeContext,
  sessionId: string,
  invocationId: string,
): Promise<RunOutcome> {
  const [snapshot, run] = await Promise.all([
    ctx.requireSnapshot(sessionId),
    ctx.store.getRun(sessionId, invocationId),
  ]);
  const ids = { session_id: sessionId, invocation_id: invocationId };
  switch (run?.status) {
    case 'completed':
      return {
        status: 'completed',
        sessionId,
        invocationId,
        app: run.app,
        result: run.result ?? '',
        artifacts: [],
      };
    case 'failed':
      throw new HoldpointError('RUN_FAILED', `The agent run failed: ${run.error ?? ''}`, ids);
    case 'cancelled':
      throw new HoldpointError('PAUSE_CANCELLED', 'The run was cancelled.', ids);
    case 'expired':
      throw new HoldpointError(
        'APPROVAL_EXPIRED',
        'The pause expired; it can no longer resume.',
        ids,
      );
    case 'paused': {
      const { pause } = snapshot;
      if (pause?.status === 'pending' && pause.invocationId === invocationId) {
        return pendingOutcome(pause);
      }
      break;
    }
  }
  throw new HoldpointError(
    'OUTCOME_UNKNOWN',
    `Run ${invocationId} is still running, or its process stopped; its state is at ` +
      `GET /api/runs/${invocationId}, and once its lease lapses it can be resumed by its id.`,
    { ...ids, status: run?.status ?? 'unknown' },
  );
}
