import type { Principal } from '../../core/principal.js';
import type { DeliveryRecord } from '../../store/outbox.js';
import { deliveryNotFound, requireDeliveryAdmin } from '../queries/deliveries.js';
import type { RuntimeContext } from '../runtime-context.js';

/**
 * Sends a delivery again (an admin's, typically one given up): due now with its attempts
 * from zero, under the same id (receivers that got it drop the duplicate). The
 * dispatcher is nudged so it goes out at once. NOT_FOUND when the outbox holds none.
 */
export async function resendDelivery(
  ctx: RuntimeContext,
  deliveryId: string,
  by: Principal,
): Promise<DeliveryRecord> {
  requireDeliveryAdmin(by, 'Re-sending a notification');
  const delivery = await ctx.store.outbox.resend(deliveryId, ctx.clock.now());
  if (!delivery) throw deliveryNotFound(deliveryId);
  ctx
    .log(delivery.event.session_id)
    .info({ delivery_id: deliveryId, by: by.id }, 'notification re-sent');
  ctx.dispatcher?.nudge();
  return delivery;
}
