import { expireTransition } from '../../session/transitions/index.js';
import type { RunEvent } from '../run-event.js';
import type { RuntimeContext } from '../runtime-context.js';
import { forEachDue } from './due-sessions.js';

/**
 * Expires the session's pause if it is past its time, and tells waiting streams.
 * Returns whether it did.
 */
export async function expirePause(ctx: RuntimeContext, sessionId: string): Promise<boolean> {
  const pause = await ctx.store.apply(sessionId, expireTransition, [ctx.clock.now()]);
  if (!pause) return false;
  ctx.log(sessionId, pause.invocationId).info('pause expired');
  ctx.store.relay.publish(sessionId, {
    type: 'ended',
    sessionId,
    invocationId: pause.invocationId,
    reason: 'expired',
    message: 'The approval request expired.',
  } satisfies RunEvent);
  return true;
}

/**
 * Expires every pause past its time, reading only the due ones from the index, and
 * records each in the audit log. One session that cannot be expired (unreadable,
 * changing) is logged and skipped; it never stops the others. Returns how many expired.
 */
export async function expireDue(ctx: RuntimeContext): Promise<number> {
  let expired = 0;
  await forEachDue(
    ctx,
    (limit) => ctx.store.listDuePauses(ctx.clock.now(), limit),
    async (sessionId) => {
      if (await expirePause(ctx, sessionId)) expired += 1;
    },
    'could not expire the pause',
  );
  return expired;
}
