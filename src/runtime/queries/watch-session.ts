import type { Principal } from '../../core/principal.js';
import type { Unsubscribe } from '../../store/run-relay.js';
import type { RunEvent } from '../run-event.js';
import type { RuntimeContext } from '../runtime-context.js';
import { requireSessionReader } from './session-view.js';

/**
 * Hands `handler` what happens to a session's runs from now on, whichever instance runs
 * them, until the returned function is called: for its owner, an admin, or someone its
 * pause asks to decide.
 */
export async function watchSession(
  ctx: RuntimeContext,
  sessionId: string,
  by: Principal,
  handler: (event: RunEvent) => void,
): Promise<Unsubscribe> {
  const snapshot = await ctx.requireSnapshot(sessionId);
  requireSessionReader(snapshot, by, 'watch this session');
  return ctx.store.relay.subscribe(sessionId, (message) => handler(message as RunEvent));
}
