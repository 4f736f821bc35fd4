import type { Context, MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/** A Host header that is a host name or an IP and a port, and nothing a policy could parse. */
const PLAIN_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The chat socket's own address, as the page reached it: `'self'` covers WebSocket
 * URLs only in browsers that follow CSP Level 3, so they are named too.
 */
function ownSockets(c: Context): string {
  const host = c.req.header('host') ?? '';
  return PLAIN_HOST.test(host) ? `ws://${host} wss://${host}` : "'self'";
}

/**
 * Headers on every response, the web UI's and the API's: a Content-Security-Policy
 * the built UI works under (its scripts and styles are files of its own, its images
 * data URLs), no framing by any page (clickjacking an approval), no MIME sniffing, no
 * Referer unless a route names its own policy (the decision link pages: `same-origin`).
 * HSTS is left to whoever terminates TLS: sent over plain HTTP it means nothing, and
 * sent from a host's mount it would bind every subdomain.
 */
export function securityHeaders(): MiddlewareHandler {
  const secure = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'", ownSockets],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
    xFrameOptions: 'DENY',
    xContentTypeOptions: true,
    // Set below, where a route's own policy is kept.
    referrerPolicy: false,
    strictTransportSecurity: false,
  });
  return async (c, next) => {
    await secure(c, next);
    if (!c.res.headers.has('referrer-policy')) c.res.headers.set('referrer-policy', 'no-referrer');
  };
}
