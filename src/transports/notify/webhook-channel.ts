import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { SETTINGS } from '../../core/settings/settings.js';
import { positiveNumber, validate } from '../../core/validate.js';
import { DeliveryFailure, type NotificationChannel } from '../../runtime/notify/channel.js';

/** Where a webhook channel posts, and the key it signs with. */
export interface WebhookChannelOptions {
  /** The receiver's URL; every approval event is POSTed to it. */
  url: string;
  /** The HMAC-SHA256 key (at least 32 characters); the receiver verifies with the same. */
  secret: string;
  /** The channel's name (per-tool `notify.channels` use it). Default `webhook`. */
  name?: string;
  /**
   * How long the receiver has to answer. Default 10 s; never longer than the notifications'
   * `attemptTimeoutSeconds` (default 10), which ends every attempt.
   */
  timeoutMs?: number;
}

/** The headers a webhook request carries. */
export const WEBHOOK_HEADERS = {
  delivery: 'Holdpoint-Delivery',
  timestamp: 'Holdpoint-Timestamp',
  signature: 'Holdpoint-Signature',
} as const;

const DEFAULT_TIMEOUT_MS = 10_000;

const webhookChannelOptions = z.strictObject({
  url: SETTINGS.webhookUrls.schema.element,
  secret: SETTINGS.webhookSecret.schema,
  name: z.string().min(1).max(100).optional(),
  timeoutMs: positiveNumber.optional(),
});

/**
 * `v1=` and the hex HMAC-SHA256 of `${timestamp}.${rawBody}` under `secret`: how every
 * request Holdpoint POSTs to a receiver is signed (deliveries, audit checkpoints).
 */
export function signatureOf(
  secret: string,
  timestamp: string,
  rawBody: string | Uint8Array,
): string {
  const hmac = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody);
  return `v1=${hmac.digest('hex')}`;
}

/**
 * A channel that POSTs each approval event as JSON, `{"delivery_id", "event"}`, signed:
 * `Holdpoint-Timestamp` (unix seconds) and `Holdpoint-Signature: v1=<hex HMAC-SHA256 of
 * "<timestamp>.<raw body>">`, with `Holdpoint-Delivery` the delivery's id (the same on
 * every retry: receivers drop duplicates by it). A 2xx answer is sent; a 4xx other than
 * 408 and 429 gives up (the receiver refused it); anything else, and no answer within
 * `timeoutMs`, is tried again later.
 */
export function webhookChannel(options: WebhookChannelOptions): NotificationChannel {
  const { url, secret } = validate(webhookChannelOptions, options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    name: options.name ?? 'webhook',
    audience: 'endpoint',
    async send(delivery, ctx) {
      const body = JSON.stringify({ delivery_id: delivery.deliveryId, event: delivery.event });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Holdpoint-Webhooks/1',
            [WEBHOOK_HEADERS.delivery]: delivery.deliveryId,
            [WEBHOOK_HEADERS.timestamp]: timestamp,
            [WEBHOOK_HEADERS.signature]: signatureOf(secret, timestamp, body),
          },
          body,
          redirect: 'manual',
          signal: AbortSignal.any([ctx.signal, timeout]),
        });
      } catch (error) {
        if (timeout.aborted) throw new DeliveryFailure(`No answer within ${timeoutMs} ms.`);
        const cause = (error as { cause?: { message?: string } }).cause?.message;
        throw new DeliveryFailure(`POST failed: ${cause ?? (error as Error).message}`);
      }
      // The answer's body means nothing to us; it is read only to free the connection.
      await response.body?.cancel().catch(() => {});
      if (response.ok) return undefined;
      const { status } = response;
      const refused = status >= 400 && status < 500 && status !== 408 && status !== 429;
      throw new DeliveryFailure(`The receiver answered HTTP ${status}.`, !refused);
    },
  };
}

/** Request headers as Node (`IncomingHttpHeaders`) or fetch (`Headers`) gives them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === wanted)?.[1];
  return Array.isArray(found) ? found[0] : found;
}

/**
 * For a webhook receiver: whether a request really comes from Holdpoint with `secret`,
 * and is fresh. Give the body exactly as received (before any JSON parsing). True when
 * `Holdpoint-Signature` holds a `v1=` signature of `${Holdpoint-Timestamp}.${rawBody}`
 * (compared in constant time; several, comma-separated, while keys rotate) and the
 * timestamp is within `toleranceSeconds` (default 300) of `now` (default the clock),
 * either way: a replay of an old request fails. Drop duplicates by `Holdpoint-Delivery`.
 */
export function verifyWebhookSignature(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  { toleranceSeconds = 300, now = Date.now() }: { toleranceSeconds?: number; now?: number } = {},
): boolean {
  const timestamp = header(headers, WEBHOOK_HEADERS.timestamp);
  const signatures = header(headers, WEBHOOK_HEADERS.signature);
  if (!timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(secret, timestamp, rawBody));
  return signatures
    .split(',')
    .map((given) => Buffer.from(given.trim()))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
}
