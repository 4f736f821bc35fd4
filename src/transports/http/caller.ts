import type { Context } from 'hono';

/**
 * Who is calling. Until authentication lands this is the `user_id` the client
 * claims (or "anonymous"); it is the one place to swap for verified identities.
 */
export function resolveCaller(_context: Context, claimedUserId: string | undefined): string {
  return claimedUserId ?? 'anonymous';
}
