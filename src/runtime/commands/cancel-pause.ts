import { z } from 'zod';
import { type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import type { Pause } from '../../core/types.js';
import { idText, reasonText } from '../../core/validate.js';
import { cancelTransition } from '../../session/transitions/index.js';
import { tagSession } from '../../telemetry/session-attributes.js';
import type { RunEvent } from '../run-event.js';
import type { RuntimeContext } from '../runtime-context.js';

export const cancelRequest = z.strictObject({
  sessionId: idText,
  reason: reasonText.optional(),
});
/** Which session's paused run to cancel, and why. */
export type CancelRequest = z.input<typeof cancelRequest>;

/**
 * Cancels a paused run: nothing pending runs, the run is recorded cancelled. Only the
 * session's owner or an admin cancels it.
 */
export async function cancelPause(
  ctx: RuntimeContext,
  request: CancelRequest,
  by: Principal,
): Promise<Pause> {
  const { sessionId, reason } = request;
  tagSession(sessionId);
  const actor = by.id;
  const { meta } = await ctx.requireSnapshot(sessionId);
  requireOwnerOrAdmin(by, meta.userId, 'cancel this run');
  const pause = await ctx.store.apply(sessionId, cancelTransition, [
    actor,
    reason,
    ctx.clock.now(),
  ]);
  ctx.log(sessionId, pause.invocationId).info({ reason }, 'run cancelled');
  ctx.store.relay.publish(sessionId, {
    type: 'ended',
    sessionId,
    invocationId: pause.invocationId,
    reason: 'cancelled',
    message: reason ? `Cancelled by ${actor}: ${reason}` : `Cancelled by ${actor}.`,
  } satisfies RunEvent);
  return pause;
}
