import type { Context } from 'hono';
import { HoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';

/** The Hono context of an API request: the principal its identity proved. */
export type WithPrincipal = { Variables: { principal: Principal } };

/** Who sends this request, as its identity proved (set for every /api request). */
export function callerOf(c: Context<WithPrincipal>): Principal {
  return c.get('principal');
}

/**
 * Who sends this request; a `user_id` the body still names must be that principal:
 * nobody acts, or is audited, as someone else by saying so.
 */
export function claimedCaller(
  c: Context<WithPrincipal>,
  claimedUserId: string | undefined,
): Principal {
  const principal = callerOf(c);
  if (claimedUserId !== undefined && claimedUserId !== principal.id) {
    throw new HoldpointError(
      'FORBIDDEN',
      `This request is signed in as ${principal.id}; it cannot act as ${claimedUserId}.`,
      { principal: principal.id },
    );
  }
  return principal;
}
