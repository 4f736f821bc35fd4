import type { MiddlewareHandler } from 'hono';
import { HoldpointError } from '../../../core/errors.js';
import type { BrowserPolicy } from './browser-policy.js';
import { isStateChanging } from './state-changing.js';

/** ORIGIN_NOT_ALLOWED for a request from `origin`. */
export function originNotAllowed(origin: string): HoldpointError {
  return new HoldpointError(
    'ORIGIN_NOT_ALLOWED',
    'Pages from this origin may not use this server: it allows its own origin and those in allowedOrigins or corsOrigins (--allowed-origin, --cors-origin).',
    { origin },
  );
}

/**
 * Refuses state-changing requests whose `Origin` the policy does not allow
 * (ORIGIN_NOT_ALLOWED, 403). Browsers send `Origin` with every such request, so a page
 * on another site is refused before anything is read; clients that send none (curl,
 * servers) pass.
 */
export function originCheck(policy: BrowserPolicy): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && isStateChanging(c.req.method)) {
      const url = new URL(c.req.url);
      const own = `${url.protocol}//${c.req.header('host') ?? url.host}`;
      if (!policy.allowsOrigin(origin, own)) throw originNotAllowed(origin);
    }
    await next();
  };
}
