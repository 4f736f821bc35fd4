import type { Env, Hono } from 'hono';
import type { BrowserPolicy } from './browser-policy.js';
import { corsOrigins } from './cors-origins.js';
import { hostCheck } from './host-check.js';
import { originCheck } from './origin-check.js';
import { securityHeaders } from './security-headers.js';

export { hostName, isLoopbackName } from '../../../core/host-names.js';
export { webOrigin } from '../../../core/origins.js';
export { type BrowserOptions, BrowserPolicy, browserOptions } from './browser-policy.js';
export { jsonBodies } from './json-bodies.js';
export { admitUpgrade } from './upgrade-check.js';

/**
 * Guards `app` against other sites' pages, outermost first: security headers on every
 * answer (refusals included), the Host check, CORS on the API when configured, then the
 * Origin check on every state-changing request (the API's and the sign-in's logout).
 * `jsonBodies` goes after the body limit.
 */
export function guardBrowsers<E extends Env>(app: Hono<E>, policy: BrowserPolicy): void {
  app.use(securityHeaders());
  app.use(hostCheck(policy));
  if (policy.corsOrigins.length > 0) app.use('/api/*', corsOrigins(policy));
  app.use(originCheck(policy));
}
