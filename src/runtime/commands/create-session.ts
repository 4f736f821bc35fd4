import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Principal } from '../../core/principal.js';
import { appName } from '../../core/validate.js';
import type { RuntimeContext } from '../runtime-context.js';

export const newSession = z.strictObject({ app: appName.optional() });
/** What a new empty session is for: its app (default: the runtime's default app). */
export type NewSessionRequest = z.input<typeof newSession>;

/**
 * Creates an empty session for `app`, owned by `by`, e.g. so a waiter can watch it
 * before the first run; its id.
 */
export async function createSession(
  ctx: RuntimeContext,
  request: NewSessionRequest,
  by: Principal,
): Promise<string> {
  const { app } = request;
  const name = ctx.requireApp(app ?? ctx.options.defaultApp).name;
  const sessionId = randomUUID();
  await ctx.store.createSession({
    sessionId,
    app: name,
    userId: by.id,
    createdAt: ctx.clock.now(),
  });
  return sessionId;
}
