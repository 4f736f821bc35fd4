import { HoldpointError } from '../../core/errors.js';
import { isLoopbackName } from '../../core/host-names.js';
import { principalSchema } from '../../core/principal.js';
import type { Authenticator } from './authenticator.js';
import { cookie, handshakeQuery } from './credentials.js';

/** The header (and cookie) naming who a development caller says it is. */
export const DEV_USER_HEADER = 'x-holdpoint-user';
export const DEV_USER_COOKIE = 'holdpoint_user';
/** The header (and cookie) with its roles, comma-separated. */
export const DEV_ROLES_HEADER = 'x-holdpoint-roles';
export const DEV_ROLES_COOKIE = 'holdpoint_roles';

/** Whether `address` is this machine (IPv4, IPv6, or IPv4 mapped into IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

/** Whether a request names this machine as its host (not a name rebound to it). */
function namesThisMachine(request: Request): boolean {
  return isLoopbackName(new URL(request.url).hostname);
}

/**
 * Development identity: whoever the caller says it is (the web UI's "Signed in as"),
 * from the `x-holdpoint-user` header or cookie (or, on a WebSocket handshake only, the
 * `user` query parameter), with the roles it names the same way; when none of these names
 * anyone, from what the request's body names (Caller.bodyUser: seed 000's client sends
 * only `{query, user_id}`). Believed only from this machine,
 * asked by this machine's own name: a caller from another address, one whose address is
 * not known, and a page that reached it through another name (DNS rebinding) are
 * refused, whatever they say.
 */
export function devIdentity(): Authenticator {
  return async ({ request, remoteAddress, handshake, bodyUser }) => {
    const query = handshakeQuery({ request, handshake });
    const id =
      request.headers.get(DEV_USER_HEADER) ?? cookie(request, DEV_USER_COOKIE) ?? query.get('user');
    const named = id ?? (await bodyUser?.());
    if (!named) return undefined;
    if (!isLoopback(remoteAddress) || !namesThisMachine(request)) {
      throw new HoldpointError(
        'UNAUTHENTICATED',
        'Development sign-in is accepted from this machine, at localhost or 127.0.0.1, only; ' +
          'configure api-keys or jwt.',
      );
    }
    const roles =
      request.headers.get(DEV_ROLES_HEADER) ??
      cookie(request, DEV_ROLES_COOKIE) ??
      query.get('roles');
    const parsed = principalSchema.safeParse({
      id: named.trim(),
      roles: (roles ?? '')
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean),
    });
    if (!parsed.success) {
      throw new HoldpointError('UNAUTHENTICATED', 'The user name or roles given are not valid.');
    }
    return parsed.data;
  };
}
