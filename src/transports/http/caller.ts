import { HoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';

/** The Hono context of an API request: the principal its identity proved. */
export type WithPrincipal = { Variables: { principal: Principal } };

/**
 * Refuses a user id a request (or a socket's frame, `on` says which) still names unless
 * it is `principal`'s: nobody acts, or is audited, as someone else by saying so.
 */
export function requireActingAs(
  principal: Principal,
  namedUserId: string | undefined,
  on: 'request' | 'socket' = 'request',
): void {
  if (namedUserId === undefined || namedUserId === principal.id) return;
  throw new HoldpointError(
    'FORBIDDEN',
    `This ${on} is signed in as ${principal.id}; it cannot act as ${namedUserId}.`,
    { principal: principal.id },
  );
}
