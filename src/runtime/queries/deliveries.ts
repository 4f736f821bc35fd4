import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import { ADMIN_ROLE, hasRole, type Principal } from '../../core/principal.js';
import type { DeliveryRecord } from '../../store/outbox.js';
import type { RuntimeContext } from '../runtime-context.js';
import { decodeCursor, encodeCursor, PAGE_FIELDS } from './page-cursor.js';

/** Which deliveries to list: all, or those with `status`, a page at a time. */
export const deliveriesQuery = z.strictObject({
  status: z.enum(['pending', 'failed', 'sent', 'gave_up']).optional(),
  ...PAGE_FIELDS,
});
export type DeliveriesQuery = z.input<typeof deliveriesQuery>;

/** A page of deliveries, newest first; `nextCursor` when there is more. */
export interface DeliveriesPage {
  deliveries: DeliveryRecord[];
  nextCursor?: string;
}

/** Deliveries go to everyone's approvers: only admins see or re-send them (FORBIDDEN). */
export function requireDeliveryAdmin(by: Principal, what: string): void {
  if (!hasRole(by, ADMIN_ROLE)) {
    throw new HoldpointError('FORBIDDEN', `${what} needs the admin role.`, { principal: by.id });
  }
}

/** NOT_FOUND for a delivery id the outbox does not hold (never written, or past retention). */
export function deliveryNotFound(deliveryId: string): HoldpointError {
  return new HoldpointError('NOT_FOUND', `No delivery ${deliveryId}.`, { delivery_id: deliveryId });
}

/**
 * The outbox's deliveries, newest first, all or by status (`gave_up`: what needs an
 * admin's look), read from the store's lists: the cost is the page. For admins.
 */
export async function listDeliveries(
  ctx: RuntimeContext,
  query: z.output<typeof deliveriesQuery>,
  by: Principal,
): Promise<DeliveriesPage> {
  const { status, limit, cursor } = query;
  requireDeliveryAdmin(by, 'Listing notifications');
  const page = await ctx.store.outbox.list({
    status,
    limit,
    after: cursor === undefined ? undefined : decodeCursor(cursor),
  });
  return { deliveries: page.items, nextCursor: page.next && encodeCursor(page.next) };
}

/** One delivery by its id, for admins; NOT_FOUND when the outbox holds none. */
export async function getDelivery(
  ctx: RuntimeContext,
  deliveryId: string,
  by: Principal,
): Promise<DeliveryRecord> {
  requireDeliveryAdmin(by, 'Reading a notification');
  const delivery = await ctx.store.outbox.get(deliveryId);
  if (!delivery) throw deliveryNotFound(deliveryId);
  return delivery;
}
