import { z } from 'zod';
import { approvalEvent } from '../../../core/approval-event.js';
import { LIMITS } from '../../../core/limits.js';
import { isoTime, page } from './common.js';

/** Where a notification stands: waiting for an attempt, failed (retried later), sent, given up. */
export const deliveryStatus = z.enum(['pending', 'failed', 'sent', 'gave_up']);

/** `GET /api/deliveries`: all, or those with `status`, a page at a time. */
export const deliveriesQuery = z.strictObject({
  status: deliveryStatus.optional(),
  limit: z.coerce.number().int().min(1).max(LIMITS.pageSize).optional(),
  cursor: z.string().min(1).max(1000).optional(),
});

/** `POST /api/deliveries/:id/resend` takes no fields (an empty body, or none). */
export const resendDeliveryBody = z.strictObject({});

/** One notification of one approval event to one recipient through one channel. */
export const delivery = z.object({
  /** Stable across retries and re-sends: the `Holdpoint-Delivery` a webhook receiver gets. */
  delivery_id: z.string(),
  /** The event's id: the hash of the audit line that recorded it. */
  event_id: z.string(),
  event: approvalEvent,
  channel: z.string(),
  /** `user:<id>`, `role:<name>`, or `endpoint:<channel>` for a channel that sends each event once. */
  recipient: z.string(),
  status: deliveryStatus,
  attempts: z.number(),
  /** While pending or failed: when the next attempt is due. */
  next_attempt_at: isoTime.optional(),
  last_error: z.string().optional(),
  /** What the channel answered when it sent it (a Slack message's `channel:ts`). */
  ref: z.string().optional(),
  sent_at: isoTime.optional(),
  created_at: isoTime,
  updated_at: isoTime,
});

/** A page of notifications, newest first (`GET /api/deliveries`). */
export const deliveriesPage = page({ deliveries: z.array(delivery) });

export type Delivery = z.output<typeof delivery>;
export type DeliveriesPage = z.output<typeof deliveriesPage>;
