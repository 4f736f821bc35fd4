import type { Hono } from 'hono';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import { type Principal, principalSchema } from '../../core/principal.js';
import { type ApiKeyEntry, apiKeyIdentity } from './api-key-identity.js';
import type { Authenticator } from './authenticator.js';
import { devIdentity } from './dev-identity.js';
import { type JwtSettings, jwtIdentity, jwtVerifier } from './jwt-identity.js';
import { type OidcSettings, oidcLogin } from './oidc-login.js';

/** A host application's own check: the principal its authentication proved, if any. */
export type IdentityHook = (
  request: Request,
) => Principal | undefined | Promise<Principal | undefined>;

/**
 * How callers prove who they are:
 * - `dev`: the name the caller gives (`x-holdpoint-user` header or cookie), from this machine only;
 * - `api-keys`: static keys, kept hashed, each mapped to a principal and roles;
 * - `jwt`: bearer tokens verified against a JWKS, issuer and audience; with `oidc`, the
 *   web UI signs in with the issuer (OpenID Connect) and keeps its token in a cookie;
 * - a function: the host application's own authentication, handed the request.
 */
export type IdentityOptions =
  | { mode: 'dev' }
  | { mode: 'api-keys'; keys: ApiKeyEntry[] }
  | ({ mode: 'jwt'; oidc?: OidcSettings } & JwtSettings)
  | IdentityHook;

/** An identity ready to use: its mode's name, shown at startup and to clients. */
export interface Identity {
  mode: 'dev' | 'api-keys' | 'jwt' | 'custom';
  authenticate: Authenticator;
  /**
   * The browser's sign-in routes (`/login`, `/callback`, `/logout`), mounted at `/auth`
   * beside `/api`: in `jwt` mode with `oidc`.
   */
  loginRoutes?: Hono;
}

/** The host's hook as an authenticator: what it returns is checked like any principal. */
function hostIdentity(hook: IdentityHook): Authenticator {
  return async ({ request }) => {
    const principal = await hook(request);
    if (principal === undefined) return undefined;
    const parsed = principalSchema.safeParse({ ...principal, roles: principal.roles ?? [] });
    if (!parsed.success) {
      throw new HoldpointError(
        'INTERNAL',
        'The identity hook returned something that is not a principal ({ id, roles }).',
      );
    }
    return parsed.data;
  };
}

/** Builds the identity `options` describe. */
export function identityFrom(options: IdentityOptions = { mode: 'dev' }): Identity {
  if (typeof options === 'function') return { mode: 'custom', authenticate: hostIdentity(options) };
  switch (options.mode) {
    case 'dev':
      return { mode: 'dev', authenticate: devIdentity() };
    case 'api-keys':
      return { mode: 'api-keys', authenticate: apiKeyIdentity(options.keys) };
    case 'jwt': {
      const { mode: _mode, oidc, ...settings } = options;
      const verify = jwtVerifier(settings);
      return {
        mode: 'jwt',
        authenticate: jwtIdentity(verify),
        ...(oidc ? { loginRoutes: oidcLogin(oidc, { issuer: settings.issuer, verify }) } : {}),
      };
    }
    default:
      throw new HoldpointError(
        'VALIDATION_FAILED',
        'identity: give { mode: "dev" | "api-keys" | "jwt" } or a function.',
      );
  }
}

/**
 * The principal `caller` proves; UNAUTHENTICATED (with `auth_mode`) when it says nothing
 * of who it is (in every mode, `dev` included). Credentials that cannot be believed are
 * UNAUTHENTICATED too, with the authenticator's `reason`. `loginUrl`, where a browser
 * signs in, is added to both.
 */
export async function requireIdentity(
  identity: Identity,
  caller: Parameters<Authenticator>[0],
  loginUrl?: string,
): Promise<Principal> {
  const signIn = loginUrl === undefined ? {} : { login_url: loginUrl };
  let principal: Principal | undefined;
  try {
    principal = await identity.authenticate(caller);
  } catch (error) {
    if (!isHoldpointError(error, 'UNAUTHENTICATED') || loginUrl === undefined) throw error;
    throw new HoldpointError('UNAUTHENTICATED', error.message, { ...error.details, ...signIn });
  }
  if (principal) return principal;
  throw new HoldpointError('UNAUTHENTICATED', unauthenticatedMessage(identity.mode), {
    auth_mode: identity.mode,
    ...signIn,
  });
}

function unauthenticatedMessage(mode: Identity['mode']): string {
  switch (mode) {
    case 'dev':
      return 'Say who you are: an x-holdpoint-user header (or the holdpoint_user cookie, or a body naming user_id).';
    case 'api-keys':
      return 'Send an API key: Authorization: Bearer <key> (or X-Api-Key).';
    case 'jwt':
      return 'Send a token: Authorization: Bearer <token>, or sign in.';
    default:
      return 'Sign in first.';
  }
}
