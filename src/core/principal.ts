import { z } from 'zod';
import { HoldpointError } from './errors.js';
import { idText } from './validate.js';

/** Who acts: an identity verified at the edge (or vouched for by the host), with its roles. */
export interface Principal {
  id: string;
  roles: readonly string[];
}

/** The role that may read and act on every session (but decides only where a policy says so). */
export const ADMIN_ROLE = 'admin';

/** What acts on its own: the expiry sweep, automatic recovery, a host's trusted reads. */
export const SYSTEM: Principal = { id: 'system', roles: [ADMIN_ROLE] };

/** A principal as it may be handed over: at most 50 roles, each like an id. */
export const principalSchema = z.strictObject({
  id: idText,
  roles: z.array(idText).max(50),
});

/** Whether `principal` has `role`. */
export function hasRole(principal: Principal, role: string): boolean {
  return principal.roles.includes(role);
}

/** Whether `principal` owns what `ownerId` names or is an admin. */
export function isOwnerOrAdmin(principal: Principal, ownerId: string): boolean {
  return principal.id === ownerId || hasRole(principal, ADMIN_ROLE);
}

/**
 * Refuses `principal` unless it owns what `ownerId` names or is an admin (or `also`
 * holds: e.g. it is asked to decide the session's pause): only the owner of a session
 * (or the `admin` role) reads it, posts to it, cancels it or reads its audit.
 */
export function requireOwnerOrAdmin(
  principal: Principal,
  ownerId: string,
  what: string,
  also = false,
): void {
  if (also || isOwnerOrAdmin(principal, ownerId)) return;
  throw new HoldpointError('FORBIDDEN', `Only its owner or an admin may ${what}.`, {
    principal: principal.id,
  });
}
