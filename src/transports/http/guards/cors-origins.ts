import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { BrowserPolicy } from './browser-policy.js';

/**
 * CORS for the policy's CORS origins only: preflights answered, responses readable by
 * pages of those origins. Without CORS origins it is not installed at all, and other
 * sites' pages can neither read answers nor send JSON (the browser asks first).
 */
export function corsOrigins(policy: BrowserPolicy): MiddlewareHandler {
  return cors({
    origin: (origin) => (policy.allowsCors(origin) ? origin : null),
    allowMethods: ['GET', 'POST', 'PUT', 'DELETE'],
    // A token or API key is how a page of another origin signs in; cookies are not sent.
    allowHeaders: ['content-type', 'idempotency-key', 'authorization', 'x-api-key'],
    maxAge: 600,
  });
}
