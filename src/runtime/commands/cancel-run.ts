import { type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import type { RunRecord } from '../../core/types.js';
import { cancelInterruptedTransition } from '../../session/transitions/index.js';
import type { CancelRunRequest } from '../requests.js';
import type { RunEvent } from '../run-event.js';
import type { RuntimeContext } from '../runtime-context.js';

/**
 * Gives up an interrupted run by its invocation id, for one that should not go on
 * (its app changed, its work is no longer wanted): the run is recorded cancelled and
 * its session takes new messages. A call it left open is answered when the next run
 * starts, with what the effect ledger knows of it. Only the session's owner or an
 * admin gives it up.
 */
export async function cancelRun(
  ctx: RuntimeContext,
  request: CancelRunRequest,
  by: Principal,
): Promise<RunRecord> {
  const { invocationId, reason } = request;
  const actor = by.id;
  const sessionId = await ctx.requireRunSession(invocationId);
  const { meta } = await ctx.requireSnapshot(sessionId);
  requireOwnerOrAdmin(by, meta.userId, 'cancel this run');
  const run = await ctx.store.apply(sessionId, cancelInterruptedTransition, [
    invocationId,
    actor,
    reason,
    ctx.clock.now(),
  ]);
  ctx
    .log(sessionId, invocationId)
    .warn({ cancelled_by: actor, reason }, 'interrupted run cancelled');
  ctx.store.relay.publish(sessionId, {
    type: 'ended',
    sessionId,
    invocationId,
    reason: 'cancelled',
    message: reason ? `Cancelled by ${actor}: ${reason}` : `Cancelled by ${actor}.`,
  } satisfies RunEvent);
  return run;
}
