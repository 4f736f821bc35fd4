import { parse } from 'hono/utils/cookie';

/** The cookie the web UI's sign-in keeps its token in (HttpOnly, set by the server). */
export const SESSION_COOKIE = 'holdpoint_session';

/** A WebSocket subprotocol that carries a token: browsers cannot set headers on a socket. */
export const TOKEN_SUBPROTOCOL_PREFIX = 'holdpoint.bearer.';

/** The value of cookie `name` in `request`, if sent (read as Hono's `getCookie` reads it). */
export function cookie(request: Request, name: string): string | undefined {
  return parse(request.headers.get('cookie') ?? '', name)[name];
}

/**
 * The token `request` carries, from the first place that has one: `Authorization:
 * Bearer`, the sign-in cookie, a `holdpoint.bearer.<token>` WebSocket subprotocol, or
 * an `access_token` query parameter (WebSocket clients that can set neither).
 */
export function bearerToken(request: Request): string | undefined {
  const authorization = request.headers.get('authorization');
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer) return bearer;
  const fromCookie = cookie(request, SESSION_COOKIE);
  if (fromCookie) return fromCookie;
  const protocols = (request.headers.get('sec-websocket-protocol') ?? '').split(',');
  const carried = protocols
    .map((p) => p.trim())
    .find((p) => p.startsWith(TOKEN_SUBPROTOCOL_PREFIX));
  if (carried) return carried.slice(TOKEN_SUBPROTOCOL_PREFIX.length);
  return new URL(request.url).searchParams.get('access_token') ?? undefined;
}
