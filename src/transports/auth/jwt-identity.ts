import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import { type Principal, principalSchema } from '../../core/principal.js';
import type { Authenticator } from './authenticator.js';
import { bearerToken, sessionToken } from './credentials.js';

/** Where tokens come from and what in them names the principal and its roles. */
export const jwtSettings = z.strictObject({
  /** The issuer's JSON Web Key Set, e.g. `https://idp.example/.well-known/jwks.json`. */
  jwksUrl: z.string().url(),
  /** The `iss` every token must carry. */
  issuer: z.string().min(1),
  /** The `aud` every token must carry. */
  audience: z.string().min(1),
  /** The claim naming the principal. Default `sub`. */
  principalClaim: z.string().min(1).default('sub'),
  /** The claim holding its roles (a dotted path, e.g. `realm_access.roles`). Default `roles`. */
  rolesClaim: z.string().min(1).default('roles'),
});
export type JwtSettings = z.input<typeof jwtSettings>;

/** The value at a dotted `path` of the token's claims. */
function claimAt(payload: JWTPayload, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (value, key) =>
        value !== null && typeof value === 'object'
          ? (value as Record<string, unknown>)[key]
          : undefined,
      payload,
    );
}

/** Roles as tokens carry them: an array of strings, or one space-separated string. */
function rolesOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((r): r is string => typeof r === 'string');
  return typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : [];
}

/** Why a token was refused, in words a client can act on. */
function refusal(error: unknown): HoldpointError {
  if (
    error instanceof errors.JWKSTimeout ||
    (error instanceof TypeError && /fetch/i.test(error.message))
  ) {
    return new HoldpointError(
      'AUTH_UNAVAILABLE',
      'The token issuer’s keys cannot be fetched now; try again.',
    );
  }
  if (error instanceof errors.JWTExpired) {
    return new HoldpointError('UNAUTHENTICATED', 'The token has expired; sign in again.', {
      reason: 'expired',
    });
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new HoldpointError(
      'UNAUTHENTICATED',
      `The token's "${error.claim}" claim is not accepted here.`,
      {
        reason: error.claim,
      },
    );
  }
  return new HoldpointError('UNAUTHENTICATED', 'The token cannot be verified.', {
    reason: 'invalid',
  });
}

/** Checks a token as the API does: the principal it proves, or UNAUTHENTICATED. */
export type TokenVerifier = (token: string) => Promise<Principal>;

/**
 * Verifies tokens (JWT) against the issuer's JWKS, issuer and audience (jose); the
 * principal and its roles come from the configured claims. A token it accepts is one
 * every API request and WebSocket handshake accepts.
 */
export function jwtVerifier(settings: JwtSettings): TokenVerifier {
  const { jwksUrl, issuer, audience, principalClaim, rolesClaim } = jwtSettings.parse(settings);
  const keys = createRemoteJWKSet(new URL(jwksUrl));
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, { issuer, audience }));
    } catch (error) {
      throw refusal(error);
    }
    const principal = principalSchema.safeParse({
      id: claimAt(payload, principalClaim),
      roles: rolesOf(claimAt(payload, rolesClaim)),
    });
    if (!principal.success) {
      throw new HoldpointError(
        'UNAUTHENTICATED',
        `The token has no usable "${principalClaim}" claim.`,
        {
          reason: principalClaim,
        },
      );
    }
    return principal.data;
  };
}

/**
 * Bearer tokens (JWT) checked by `verify`, read from `Authorization: Bearer`, the web
 * sign-in's cookie, or a WebSocket handshake's subprotocol or `access_token`.
 */
export function jwtIdentity(verify: TokenVerifier): Authenticator {
  return async (caller) => {
    const token = bearerToken(caller) ?? sessionToken(caller.request);
    return token ? verify(token) : undefined;
  };
}
