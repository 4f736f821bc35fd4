import { type Principal, SYSTEM } from '../../core/principal.js';
import type { RuntimeContext } from '../runtime-context.js';

/** The people whose out-of-office delegation to `by` is in force at `now`. */
export async function delegatorsOf(
  ctx: RuntimeContext,
  by: Principal,
  now: number,
): Promise<string[]> {
  if (by === SYSTEM) return [];
  return (await ctx.store.delegations.delegatorsOf(by.id, now)).map((d) => d.userId);
}
