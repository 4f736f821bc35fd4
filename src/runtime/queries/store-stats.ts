import { HoldpointError } from '../../core/errors.js';
import { ADMIN_ROLE, hasRole, type Principal } from '../../core/principal.js';
import type { StoreStats } from '../../store/store.js';
import type { NoInput } from '../requests.js';
import type { RuntimeContext } from '../runtime-context.js';

/**
 * How much the store holds (sessions, paused, running, deliveries, bytes, a SQL store's
 * schema version): counts over everyone's sessions, so for admins only (FORBIDDEN).
 */
export async function getStoreStats(
  ctx: RuntimeContext,
  _input: NoInput,
  by: Principal,
): Promise<StoreStats> {
  if (!hasRole(by, ADMIN_ROLE)) {
    throw new HoldpointError('FORBIDDEN', "Reading the store's statistics needs the admin role.", {
      principal: by.id,
    });
  }
  return ctx.store.stats();
}
