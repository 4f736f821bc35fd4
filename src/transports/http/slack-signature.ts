import { createHmac, timingSafeEqual } from 'node:crypto';

/** How old a signed Slack request may be: older ones may be replays (Slack's own advice). */
export const SLACK_TOLERANCE_SECONDS = 300;

/**
 * Whether a request comes from Slack, as Slack signs them: `X-Slack-Signature` is
 * `v0=` + hex HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<raw body>` under the
 * app's signing secret, and the timestamp is within five minutes of `nowMs`.
 */
export function verifySlackSignature(
  signingSecret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  rawBody: string,
  nowMs: number,
): boolean {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(
    `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`,
  );
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
