import { HoldpointError } from '../../core/errors.js';
import { type Principal, principalSchema } from '../../core/principal.js';
import { type ApiKeyEntry, apiKeyIdentity } from './api-key-identity.js';
import type { Authenticator } from './authenticator.js';
import { devIdentity } from './dev-identity.js';
import { type JwtSettings, jwtIdentity } from './jwt-identity.js';

/** A host application's own check: the principal its authentication proved, if any. */
export type IdentityHook = (
  request: Request,
) => Principal | undefined | Promise<Principal | undefined>;

/**
 * How callers prove who they are:
 * - `dev`: the name the caller gives (`x-holdpoint-user` header or cookie), from this machine only;
 * - `api-keys`: static keys, kept hashed, each mapped to a principal and roles;
 * - `jwt`: bearer tokens verified against a JWKS, issuer and audience;
 * - a function: the host application's own authentication, handed the request.
 */
export type IdentityOptions =
  | { mode: 'dev' }
  | { mode: 'api-keys'; keys: ApiKeyEntry[] }
  | ({ mode: 'jwt' } & JwtSettings)
  | IdentityHook;

/** An identity ready to use: its mode's name, shown at startup and to clients. */
export interface Identity {
  mode: 'dev' | 'api-keys' | 'jwt' | 'custom';
  authenticate: Authenticator;
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
      const { mode: _mode, ...settings } = options;
      return { mode: 'jwt', authenticate: jwtIdentity(settings) };
    }
    default:
      throw new HoldpointError(
        'VALIDATION_FAILED',
        'identity: give { mode: "dev" | "api-keys" | "jwt" } or a function.',
      );
  }
}

/**
 * The principal `caller` proves; UNAUTHENTICATED when it says nothing of who it is
 * (in every mode, `dev` included) or cannot be believed.
 */
export async function requireIdentity(
  identity: Identity,
  caller: Parameters<Authenticator>[0],
): Promise<Principal> {
  const principal = await identity.authenticate(caller);
  if (principal) return principal;
  throw new HoldpointError('UNAUTHENTICATED', unauthenticatedMessage(identity.mode), {
    auth_mode: identity.mode,
  });
}

function unauthenticatedMessage(mode: Identity['mode']): string {
  switch (mode) {
    case 'dev':
      return 'Say who you are: an x-holdpoint-user header (or the holdpoint_user cookie).';
    case 'api-keys':
      return 'Send an API key: Authorization: Bearer <key> (or X-Api-Key).';
    case 'jwt':
      return 'Send a token: Authorization: Bearer <token>, or sign in.';
    default:
      return 'Sign in first.';
  }
}
