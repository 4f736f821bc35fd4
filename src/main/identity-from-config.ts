import { readFileSync } from 'node:fs';
import type { HoldpointConfig } from '../config/config.js';
import { HoldpointError } from '../core/errors.js';
import { apiKeysFile, type IdentityOptions } from '../transports/auth/index.js';

/** The API keys JSON (`{ "keys": [...] }`) from `source`, checked. */
function readKeys(json: string, source: string): IdentityOptions {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new HoldpointError('VALIDATION_FAILED', `${source} is not JSON.`);
  }
  const parsed = apiKeysFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `${source}: ${issue?.path.join('.') || 'it'}: ${issue?.message} (expected { "keys": [{ "hash": "sha256:…", "principal", "roles" }] })`,
    );
  }
  return { mode: 'api-keys', keys: parsed.data.keys };
}

/** How callers prove who they are, as the config says (the keys file read now). */
export function identityFromConfig(config: HoldpointConfig): IdentityOptions {
  switch (config.auth) {
    case 'api-keys': {
      if (config.apiKeys) return readKeys(config.apiKeys, 'HOLDPOINT_API_KEYS');
      const file = config.apiKeysFile as string;
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        const why = (error as NodeJS.ErrnoException).code ?? String(error);
        throw new HoldpointError(
          'VALIDATION_FAILED',
          `Cannot read the API keys file ${file} (${why}).`,
        );
      }
      return readKeys(text, file);
    }
    case 'jwt':
      return {
        mode: 'jwt',
        jwksUrl: config.jwtJwksUrl as string,
        issuer: config.jwtIssuer as string,
        audience: config.jwtAudience as string,
        principalClaim: config.jwtPrincipalClaim,
        rolesClaim: config.jwtRolesClaim,
        ...(config.oidcClientId === undefined
          ? {}
          : {
              oidc: {
                clientId: config.oidcClientId,
                clientSecret: config.oidcClientSecret,
                redirectUrl: config.oidcRedirectUrl,
                scope: config.oidcScope,
                cookieSecret: config.oidcCookieSecret,
              },
            }),
      };
    default:
      return { mode: 'dev' };
  }
}
