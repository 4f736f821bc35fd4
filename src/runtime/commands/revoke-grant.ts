import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import { isOwnerOrAdmin, type Principal } from '../../core/principal.js';
import { grantRevokedTransition } from '../../session/transitions/index.js';
import { type ListedGrant, listedGrant } from '../queries/grants.js';
import type { RuntimeContext } from '../runtime-context.js';

/**
 * Revokes a grant now: from then on it allows no call. For the grant's user, its
 * granter or an admin; anyone else gets GRANT_NOT_FOUND, as for a grant that does not
 * exist (nobody learns of others' grants). The revocation is stored first (a
 * permission narrows before anything says so), then a `grant_revoked` line in the
 * session the grant was made in (none once that session is gone). Revoking a revoked
 * grant changes nothing and answers it as it is.
 */
export async function revokeGrant(
  ctx: RuntimeContext,
  id: string,
  by: Principal,
): Promise<ListedGrant> {
  const grant = await ctx.store.grants.get(id);
  if (!grant || !(isOwnerOrAdmin(by, grant.userId) || by.id === grant.grantedBy)) {
    throw new HoldpointError('GRANT_NOT_FOUND', `No grant ${id}.`, { grant_id: id });
  }
  const now = ctx.clock.now();
  if (grant.revokedAt !== undefined) return listedGrant(grant, now);
  const revoked = listedGrant((await ctx.store.grants.revoke(id, by.id, now)) ?? grant, now);
  // Someone else revoked it meanwhile: their line says so.
  if (revoked.revokedBy !== by.id || revoked.revokedAt !== now) return revoked;
  try {
    await ctx.store.apply(grant.sessionId, grantRevokedTransition, [grant, by.id, now]);
  } catch (error) {
    if (!isHoldpointError(error, 'SESSION_NOT_FOUND')) throw error;
  }
  ctx.log(grant.sessionId, undefined).info({ grant_id: id, by: by.id }, 'grant revoked');
  return revoked;
}
