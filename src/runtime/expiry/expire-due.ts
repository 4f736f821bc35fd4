import { expireTransition } from '../../store/transitions.js';
import type { RunEvent } from '../run-event.js';
import type { RuntimeContext } from '../runtime-context.js';

/** How many due pauses one read of the index returns. */
const BATCH = 100;
/** Reads per sweep: what is left waits for the next beat. */
const MAX_BATCHES = 20;

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
  // Sessions this sweep already tried: one that cannot be expired stays in the index.
  const tried = new Set<string>();
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const limit = BATCH + tried.size;
    const listed = await ctx.store.listDuePauses(ctx.clock.now(), limit);
    const due = listed.filter((sessionId) => !tried.has(sessionId));
    for (const sessionId of due) {
      tried.add(sessionId);
      try {
        if (await expirePause(ctx, sessionId)) expired += 1;
      } catch (error) {
        ctx.log(sessionId).warn({ err: error }, 'could not expire the pause');
      }
    }
    if (due.length === 0 || listed.length < limit) break;
  }
  return expired;
}
