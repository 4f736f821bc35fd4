import type { z } from 'zod';
import type { DeliveryRecord } from '../../../store/outbox.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A delivery as the API shows it. */
function presentDelivery(delivery: DeliveryRecord): z.input<typeof wire.delivery> {
  return {
    delivery_id: delivery.deliveryId,
    event_id: delivery.eventId,
    event: delivery.event,
    channel: delivery.channel,
    recipient: delivery.recipient,
    status: delivery.status,
    attempts: delivery.attempts,
    ...(delivery.nextAttemptAt === undefined
      ? {}
      : { next_attempt_at: iso(delivery.nextAttemptAt) }),
    ...(delivery.lastError === undefined ? {} : { last_error: delivery.lastError }),
    ...(delivery.ref === undefined ? {} : { ref: delivery.ref }),
    ...(delivery.sentAt === undefined ? {} : { sent_at: iso(delivery.sentAt) }),
    created_at: iso(delivery.createdAt),
    updated_at: iso(delivery.updatedAt),
  };
}

/** `/api/deliveries`: the notifications of approval events, for admins. */
export const deliveryOperations = [
  defineOperation({
    name: 'listDeliveries',
    method: 'get',
    path: '/api/deliveries',
    summary:
      'Notifications of approval events (webhooks, …), newest first, all or by status (`pending`, `failed`, `sent`, `gave_up`), a page at a time (admins).',
    query: wire.deliveriesQuery,
    act: ({ query, by, runtime }) => runtime.operations.listDeliveries(query, by),
    answer: wire.deliveriesPage,
    present: (page) => ({
      deliveries: page.deliveries.map(presentDelivery),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    }),
  }),
  defineOperation({
    name: 'getDelivery',
    method: 'get',
    path: '/api/deliveries/:deliveryId',
    summary:
      'One notification by its delivery id: its event, recipient, attempts and last error (admins).',
    act: ({ params, by, runtime }) => runtime.operations.getDelivery(params.deliveryId ?? '', by),
    answer: wire.delivery,
    present: presentDelivery,
  }),
  defineOperation({
    name: 'resendDelivery',
    method: 'post',
    path: '/api/deliveries/:deliveryId/resend',
    summary:
      'Sends a notification again now, attempts from zero, under the same delivery id (admins).',
    optionalBody: true,
    body: wire.resendDeliveryBody,
    act: ({ params, by, runtime }) =>
      runtime.operations.resendDelivery(params.deliveryId ?? '', by),
    answer: wire.delivery,
    present: presentDelivery,
  }),
];
