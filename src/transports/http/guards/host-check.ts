import type { MiddlewareHandler } from 'hono';
import { HoldpointError } from '../../../core/errors.js';
import type { BrowserPolicy } from './browser-policy.js';

/** HOST_NOT_ALLOWED for a request naming `host`. */
export function hostNotAllowed(host: string | undefined): HoldpointError {
  return new HoldpointError(
    'HOST_NOT_ALLOWED',
    'This server does not answer to this host name; the names it answers to are set with allowedHosts (--allowed-host).',
    { host: host ?? null },
  );
}

/**
 * Refuses requests whose `Host` names a host the policy does not allow
 * (HOST_NOT_ALLOWED, 403): a page whose own name was made to resolve to this server
 * (DNS rebinding) is same-origin to the browser, and only its Host gives it away.
 */
export function hostCheck(policy: BrowserPolicy): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!policy.allowsHost(host)) throw hostNotAllowed(host);
    await next();
  };
}
