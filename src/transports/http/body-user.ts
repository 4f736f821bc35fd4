import type { Context } from 'hono';
import { idText } from '../../core/validate.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import { isStateChanging } from './guards/state-changing.js';

/** The first of `keys` that `body` holds as a valid id. */
function idIn(body: Record<string, unknown>, keys: string[]): string | undefined {
  for (const key of keys) {
    const parsed = idText.safeParse(body[key]);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/**
 * Who a request's JSON body says sends it, for the development identity when no header
 * or cookie names anyone: its `user_id` (`userId` in a chat body), else the owner of
 * the session its `session_id` (`sessionId`) names — seed 000's client resumes with
 * `{session_id, approved}` alone, its API knowing the user from the stored pause.
 * Undefined for a request without a JSON object body, or naming neither (or an unknown
 * session). The body is read once; the route reads it again from Hono's cache.
 */
export function bodyUserOf(
  c: Context,
  runtime: HoldpointRuntime,
): () => Promise<string | undefined> {
  return async () => {
    if (!isStateChanging(c.req.method)) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const fields = body as Record<string, unknown>;
    const userId = idIn(fields, ['user_id', 'userId']);
    if (userId) return userId;
    const sessionId = idIn(fields, ['session_id', 'sessionId']);
    return sessionId === undefined ? undefined : runtime.sessionOwner(sessionId);
  };
}
