import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { HoldpointError } from '../../../core/errors.js';
import { refuseUpgrade } from '../refuse-upgrade.js';
import type { BrowserPolicy } from './browser-policy.js';
import { hostNotAllowed } from './host-check.js';
import { originNotAllowed } from './origin-check.js';

/** Why the policy refuses a handshake, if it does. */
function refusalOf(policy: BrowserPolicy, request: IncomingMessage): HoldpointError | undefined {
  const { host, origin } = request.headers;
  if (!policy.allowsHost(host)) return hostNotAllowed(host);
  const scheme = (request.socket as TLSSocket).encrypted ? 'https:' : 'http:';
  if (origin !== undefined && !policy.allowsOrigin(origin, `${scheme}//${host ?? ''}`)) {
    return originNotAllowed(origin);
  }
  return undefined;
}

/**
 * Checks a WebSocket handshake as the HTTP guards check requests: its Host, and its
 * Origin (browsers let any page open a socket anywhere, and always say whose page it is).
 * A refused handshake is answered here with the error as JSON, before any upgrade, and
 * false is returned.
 */
export function admitUpgrade(
  policy: BrowserPolicy,
  request: IncomingMessage,
  socket: Duplex,
): boolean {
  const refusal = refusalOf(policy, request);
  if (!refusal) return true;
  refuseUpgrade(socket, refusal);
  return false;
}
