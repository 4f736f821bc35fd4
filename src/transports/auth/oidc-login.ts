import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { base64url, createRemoteJWKSet, decodeJwt, errors, type JWTPayload, jwtVerify } from 'jose';
import { z } from 'zod';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import { validate } from '../../core/validate.js';
import { SESSION_COOKIE } from './credentials.js';
import type { TokenVerifier } from './jwt-identity.js';
import {
  LOGIN_TRANSACTION_SECONDS,
  type LoginTransaction,
  loginTransactionSeal,
} from './login-transaction.js';
import { oidcDiscovery, PROVIDER_TIMEOUT_MS, type ProviderMetadata } from './oidc-discovery.js';
import { returnPath } from './return-path.js';

/** The web UI's sign-in with an OpenID provider (the `jwt` mode's issuer). */
export const oidcSettings = z.strictObject({
  /** Holdpoint's client id at the provider. */
  clientId: z.string().min(1),
  /** Its secret, for a confidential client; a public client signs in with PKCE alone. */
  clientSecret: z.string().min(1).optional(),
  /**
   * The callback registered with the provider. Default: the origin the browser reached
   * `/auth/login` on, and `/auth/callback` — give it behind a proxy that ends TLS.
   */
  redirectUrl: z
    .string()
    .url()
    .refine((url) => /^https?:/.test(url), 'an http(s) URL')
    .optional(),
  /** The scopes asked for, space-separated; must include `openid`. Default `openid`. */
  scope: z
    .string()
    .refine((scope) => scope.split(/\s+/).includes('openid'), 'must include openid')
    .default('openid'),
  /**
   * Seals sign-ins in progress (at least 32 characters). Default: a random key per
   * process — give the same secret to every instance behind one address.
   */
  cookieSecret: z.string().min(32, 'at least 32 characters').optional(),
});
export type OidcSettings = z.input<typeof oidcSettings>;

/** The cookie that carries a sign-in in progress to the callback. */
const LOGIN_COOKIE = 'holdpoint_login';
/** Browsers keep no cookie whose name and value exceed 4096 bytes. */
const MAX_COOKIE_BYTES = 4096;

const tokenAnswer = z.object({
  access_token: z.string().optional(),
  id_token: z.string().min(1),
});

/** LOGIN_FAILED: the sign-in cannot complete; `reason` says which check refused it. */
function loginFailed(message: string, reason: string): HoldpointError {
  return new HoldpointError('LOGIN_FAILED', message, { reason });
}

/** 32 random bytes, base64url: a state, a nonce or a PKCE verifier (RFC 7636: 43 characters). */
function randomToken(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
}

/** The PKCE S256 challenge of `verifier`. */
async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url.encode(new Uint8Array(digest));
}

/** Whether two strings are equal, in time that does not depend on where they differ. */
function sameText(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let difference = left.length ^ right.length;
  for (let i = 0; i < left.length; i++) difference |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return difference === 0;
}

/** `text` as `application/x-www-form-urlencoded` encodes it (RFC 6749 §2.3.1). */
const formEncoded = (text: string) => new URLSearchParams({ v: text }).toString().slice(2);

/**
 * The web UI's sign-in routes, mounted at `/auth` (under the API's mount, if any), for
 * the authorization code flow with PKCE (S256), `state` and `nonce` against the
 * provider `issuer` names in its discovery document:
 *
 * - `GET /login?return_to=<path>` seals a new sign-in into an HttpOnly, SameSite=Lax
 *   cookie (10 minutes, encrypted: see loginTransactionSeal) and redirects to the
 *   provider;
 * - `GET /callback` checks `state` (and `iss` when sent) against that cookie, exchanges
 *   the code with the verifier, verifies the ID token (signature, issuer, audience =
 *   client id, nonce), then keeps in the `holdpoint_session` cookie (HttpOnly,
 *   SameSite=Lax, Path=/, Secure when the callback is https, expiring with the token)
 *   the first of the access token and the ID token that `verify` — the API's own check
 *   — accepts, and redirects to the sign-in's `return_to`. Nothing is set when a check
 *   fails (LOGIN_FAILED, 400, with `reason`);
 * - `POST /logout` (JSON or no body, guarded like the API) clears the session cookie.
 */
export function oidcLogin(
  settings: OidcSettings,
  provider: { issuer: string; verify: TokenVerifier },
): Hono {
  const { clientId, clientSecret, redirectUrl, scope, cookieSecret } = validate(
    oidcSettings,
    settings,
  );
  const { issuer, verify } = provider;
  const metadataOf = oidcDiscovery(issuer);
  const transactions = loginTransactionSeal(cookieSecret);
  // Discovery keeps the metadata it read, so the provider's key set is one for good.
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  const keysOf = (metadata: ProviderMetadata) => {
    keys ??= createRemoteJWKSet(new URL(metadata.jwks_uri));
    return keys;
  };

  /** The provider's tokens for `code`, redeemed with the sign-in's verifier. */
  const exchange = async (metadata: ProviderMetadata, code: string, sent: LoginTransaction) => {
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: sent.redirectUrl,
      code_verifier: sent.verifier,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (clientSecret === undefined) body.set('client_id', clientId);
    else {
      const credentials = `${formEncoded(clientId)}:${formEncoded(clientSecret)}`;
      // Both parts are ASCII once form-encoded.
      headers.authorization = `Basic ${btoa(credentials)}`;
    }
    let response: Response;
    try {
      response = await fetch(metadata.token_endpoint, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
    } catch {
      throw new HoldpointError(
        'AUTH_UNAVAILABLE',
        'The identity provider cannot be reached now; try again.',
      );
    }
    const answer = (await response.json().catch(() => undefined)) as
      | { error?: unknown; error_description?: unknown }
      | undefined;
    if (!response.ok) {
      if (typeof answer?.error !== 'string') {
        throw new HoldpointError(
          'AUTH_UNAVAILABLE',
          `The identity provider's token endpoint answered HTTP ${response.status}; try again.`,
        );
      }
      const why =
        typeof answer.error_description === 'string' ? `: ${answer.error_description}` : '';
      throw loginFailed(
        `The identity provider refused the sign-in code (${answer.error}${why}).`,
        'token',
      );
    }
    const tokens = tokenAnswer.safeParse(answer);
    if (!tokens.success) {
      throw loginFailed('The identity provider answered without an ID token.', 'token');
    }
    return tokens.data;
  };

  /** The ID token's claims, once it proves this sign-in (OpenID Connect Core §3.1.3.7). */
  const verifyIdToken = async (metadata: ProviderMetadata, idToken: string, nonce: string) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keysOf(metadata), { issuer, audience: clientId }));
    } catch (error) {
      if (error instanceof errors.JWKSTimeout || error instanceof TypeError) {
        throw new HoldpointError(
          'AUTH_UNAVAILABLE',
          'The identity provider’s keys cannot be fetched now; try again.',
        );
      }
      throw loginFailed('The ID token cannot be verified.', 'id_token');
    }
    if (typeof payload.nonce !== 'string' || !sameText(payload.nonce, nonce)) {
      throw loginFailed('The ID token is not from this sign-in (nonce).', 'nonce');
    }
    if (payload.azp !== undefined && payload.azp !== clientId) {
      throw loginFailed('The ID token was issued to another client (azp).', 'id_token');
    }
  };

  /**
   * What the session cookie keeps: the access token when the API accepts it (a provider
   * issuing JWT access tokens for `--jwt-audience`), else the ID token (accepted when
   * `--jwt-audience` is the client id). Checked with the API's own verifier, so the
   * cookie never holds a token every request would then refuse.
   */
  const sessionToken = async (tokens: z.infer<typeof tokenAnswer>) => {
    for (const token of [tokens.access_token, tokens.id_token]) {
      if (token === undefined) continue;
      try {
        await verify(token);
        return token;
      } catch (error) {
        if (!isHoldpointError(error, 'UNAUTHENTICATED')) throw error;
      }
    }
    throw loginFailed(
      'Neither the access token nor the ID token is accepted by this server’s jwt settings: ' +
        'have the provider issue JWT access tokens for --jwt-audience, or set --jwt-audience to the client id.',
      'not_accepted',
    );
  };

  const routes = new Hono();

  routes.get('/login', async (c) => {
    const returnTo = returnPath(c.req.query('return_to'));
    const metadata = await metadataOf();
    const here = new URL(c.req.url);
    const callback =
      redirectUrl ?? `${here.origin}${here.pathname.replace(/\/login$/, '/callback')}`;
    const transaction: LoginTransaction = {
      state: randomToken(),
      nonce: randomToken(),
      verifier: randomToken(),
      returnTo,
      redirectUrl: callback,
    };
    const authorize = new URL(metadata.authorization_endpoint);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback,
      scope,
      state: transaction.state,
      nonce: transaction.nonce,
      code_challenge: await challengeOf(transaction.verifier),
      code_challenge_method: 'S256',
    })) {
      authorize.searchParams.set(name, value);
    }
    // Only the callback needs it; Lax still sends it on the provider's redirect back.
    setCookie(c, LOGIN_COOKIE, await transactions.seal(transaction), {
      httpOnly: true,
      sameSite: 'Lax',
      secure: callback.startsWith('https:'),
      path: new URL(callback).pathname,
      maxAge: LOGIN_TRANSACTION_SECONDS,
    });
    return c.redirect(authorize.href, 302);
  });

  routes.get('/callback', async (c) => {
    const query = c.req.query();
    const sealed = getCookie(c, LOGIN_COOKIE);
    const sent = sealed === undefined ? undefined : await transactions.open(sealed);
    if (!sent) {
      throw loginFailed(
        'No sign-in is in progress in this browser (or it took longer than 10 minutes); sign in again.',
        'no_login',
      );
    }
    if (query.state === undefined || !sameText(query.state, sent.state)) {
      throw loginFailed('This answer is not for the sign-in in progress (state).', 'state');
    }
    // RFC 9207: a provider that names itself must be the one asked.
    if (query.iss !== undefined && query.iss !== issuer) {
      throw loginFailed('This answer comes from another identity provider (iss).', 'iss');
    }
    if (query.error !== undefined) {
      const why = query.error_description ? `: ${query.error_description}` : '';
      throw loginFailed(
        `The identity provider did not sign you in (${query.error}${why}).`,
        'provider',
      );
    }
    if (!query.code) throw loginFailed('The answer carries no code.', 'code');
    const metadata = await metadataOf();
    const tokens = await exchange(metadata, query.code, sent);
    await verifyIdToken(metadata, tokens.id_token, sent.nonce);
    const token = await sessionToken(tokens);
    if (SESSION_COOKIE.length + 1 + token.length > MAX_COOKIE_BYTES) {
      throw loginFailed(
        'The token is too large for a cookie; ask the provider for a smaller one (fewer claims).',
        'too_large',
      );
    }
    const { exp } = decodeJwt(token);
    deleteCookie(c, LOGIN_COOKIE, { path: new URL(sent.redirectUrl).pathname });
    setCookie(c, SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: sent.redirectUrl.startsWith('https:'),
      path: '/',
      ...(exp === undefined ? {} : { maxAge: Math.max(0, exp - Math.floor(Date.now() / 1000)) }),
    });
    return c.redirect(sent.returnTo, 303);
  });

  routes.post('/logout', (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  });

  return routes;
}
