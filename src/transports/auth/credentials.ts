import { parse } from 'hono/utils/cookie';
import type { Caller } from './authenticator.js';

/** The cookie the web UI's sign-in keeps its token in (HttpOnly, set by the server). */
export const SESSION_COOKIE = 'holdpoint_session';

/** A WebSocket subprotocol that carries a token: browsers cannot set headers on a socket. */
export const TOKEN_SUBPROTOCOL_PREFIX = 'holdpoint.bearer.';

/** The value of cookie `name` in `request`, if sent (read as Hono's `getCookie` reads it). */
export function cookie(request: Request, name: string): string | undefined {
  return parse(request.headers.get('cookie') ?? '', name)[name];
}

/**
 * The credentials a request's query string may carry: those of a WebSocket handshake,
 * none on any other request (a credential in a URL ends up in logs and history).
 */
export function handshakeQuery({ request, handshake }: Caller): URLSearchParams {
  return handshake ? new URL(request.url).searchParams : new URLSearchParams();
}

/**
 * The token a caller carries: `Authorization: Bearer`, or, on a WebSocket handshake
 * only, a `holdpoint.bearer.<token>` subprotocol or an `access_token` query parameter
 * (clients that can set no header there). The web sign-in's cookie is `sessionToken`.
 */
export function bearerToken(caller: Caller): string | undefined {
  const authorization = caller.request.headers.get('authorization');
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer) return bearer;
  if (!caller.handshake) return undefined;
  const protocols = (caller.request.headers.get('sec-websocket-protocol') ?? '').split(',');
  const carried = protocols
    .map((p) => p.trim())
    .find((p) => p.startsWith(TOKEN_SUBPROTOCOL_PREFIX));
  if (carried) return carried.slice(TOKEN_SUBPROTOCOL_PREFIX.length);
  return handshakeQuery(caller).get('access_token') ?? undefined;
}

/** The token the web UI's sign-in (OpenID Connect, `jwt` mode) keeps in its cookie. */
export function sessionToken(request: Request): string | undefined {
  return cookie(request, SESSION_COOKIE);
}
