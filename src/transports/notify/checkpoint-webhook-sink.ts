import { randomUUID } from 'node:crypto';
import type { AuditCheckpoint } from '../../core/audit-checkpoint.js';
import type { CheckpointSink } from '../../runtime/audit/audit-checkpointer.js';
import { signatureOf, WEBHOOK_HEADERS } from './webhook-channel.js';

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * A sink POSTing each checkpoint, as JSON, to `url`, signed as webhook deliveries are
 * (`Holdpoint-Timestamp`, `Holdpoint-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<raw
 * body>">` under `secret`; receivers check it with verifyWebhookSignature) with a new
 * `Holdpoint-Delivery` id each. Anything but a 2xx answer within `timeoutMs` fails the
 * write: the checkpointer sends its heads again with the next checkpoint.
 */
export function checkpointWebhookSink(options: {
  url: string;
  secret: string;
  timeoutMs?: number;
}): CheckpointSink {
  const { url, secret, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
  return {
    name: `webhook ${url}`,
    async write(checkpoint: AuditCheckpoint) {
      const body = JSON.stringify(checkpoint);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Holdpoint-Webhooks/1',
          [WEBHOOK_HEADERS.delivery]: randomUUID(),
          [WEBHOOK_HEADERS.timestamp]: timestamp,
          [WEBHOOK_HEADERS.signature]: signatureOf(secret, timestamp, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      // The answer's body means nothing to us; it is read only to free the connection.
      await response.body?.cancel().catch(() => {});
      if (!response.ok) throw new Error(`the receiver answered HTTP ${response.status}`);
    },
  };
}
