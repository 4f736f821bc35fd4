/**
 * Who is calling. Until authentication lands this is the `user_id` the client
 * claims (or "anonymous"); it is the one place to swap for verified identities,
 * which will read them from `request` (an HTTP request or a WebSocket upgrade).
 */
export function resolveCaller(_request: unknown, claimedUserId: string | undefined): string {
  return claimedUserId ?? 'anonymous';
}
