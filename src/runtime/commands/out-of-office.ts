import { HoldpointError } from '../../core/errors.js';
import { type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import type { Delegation } from '../../store/delegations.js';
import { INBOX_CHANNEL, type InboxNews } from '../../store/inbox-news.js';
import { delegationEndsInTime, type SetDelegationRequest } from '../requests.js';
import type { RuntimeContext } from '../runtime-context.js';

/**
 * Tells the open inboxes of `delegates` that what they may decide changed (a delegation
 * to them began or ended), once the delegation is stored.
 */
function tellDelegates(ctx: RuntimeContext, delegates: (string | undefined)[]): void {
  const audiences = [...new Set(delegates.filter((d) => d !== undefined))].map((d) => `user:${d}`);
  if (audiences.length > 0) {
    ctx.store.relay.publish(INBOX_CHANNEL, { audiences, delegation: true } satisfies InboxNews);
  }
}

/**
 * Leaves `userId`'s approvals to a delegate while they are away (replacing an earlier
 * delegation): from `from` (default now) until `until`, the delegate may decide what
 * `userId` may and finds it in their inbox. For `userId` themselves or an admin.
 */
export async function setDelegation(
  ctx: RuntimeContext,
  { userId: id, delegate, from, until, reason }: SetDelegationRequest,
  by: Principal,
): Promise<Delegation> {
  requireOwnerOrAdmin(by, id, "set this person's out-of-office delegation");
  const now = ctx.clock.now();
  if (delegate === id) {
    throw new HoldpointError('VALIDATION_FAILED', 'A person cannot delegate to themselves.', {
      field: 'delegate',
    });
  }
  if (!delegationEndsInTime(until, now)) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      'A delegation must end in the future, within a year.',
      { field: 'until' },
    );
  }
  const delegation: Delegation = {
    userId: id,
    delegate,
    from: from ?? now,
    until,
    ...(reason === undefined ? {} : { reason }),
    createdAt: now,
  };
  const earlier = await ctx.store.delegations.get(id, now);
  await ctx.store.delegations.set(delegation);
  tellDelegates(ctx, [delegate, earlier?.delegate]);
  ctx.logger.info({ user_id: id, delegate, until, by: by.id }, 'out-of-office delegation set');
  return delegation;
}

/** The delegation of the person `id` that has not ended (it may not have begun); for them or an admin. */
export async function getDelegation(
  ctx: RuntimeContext,
  id: string,
  by: Principal,
): Promise<Delegation | undefined> {
  requireOwnerOrAdmin(by, id, "read this person's out-of-office delegation");
  return ctx.store.delegations.get(id, ctx.clock.now());
}

/** Ends the delegation of the person `id` now; whether there was one. For them or an admin. */
export async function clearDelegation(
  ctx: RuntimeContext,
  id: string,
  by: Principal,
): Promise<boolean> {
  requireOwnerOrAdmin(by, id, "end this person's out-of-office delegation");
  const earlier = await ctx.store.delegations.get(id, ctx.clock.now());
  const cleared = await ctx.store.delegations.clear(id);
  tellDelegates(ctx, [earlier?.delegate]);
  if (cleared) ctx.logger.info({ user_id: id, by: by.id }, 'out-of-office delegation ended');
  return cleared;
}
