import { createHmac } from 'node:crypto';

/**
 * Test support: the headers of a form Slack posts, signed as Slack signs it — `body` at
 * `timestamp` (seconds since the epoch) under the app's signing `secret`.
 */
export function slackSignedHeaders(
  body: string,
  secret: string,
  timestamp: string,
): Record<string, string> {
  const signature = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': `v0=${signature}`,
  };
}
