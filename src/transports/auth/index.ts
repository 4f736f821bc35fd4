export { type ApiKeyEntry, apiKeysFile, hashApiKey, newApiKey } from './api-key-identity.js';
export type { Authenticator, Caller } from './authenticator.js';
export { bearerToken, SESSION_COOKIE, TOKEN_SUBPROTOCOL_PREFIX } from './credentials.js';
export { DEV_ROLES_HEADER, DEV_USER_COOKIE, DEV_USER_HEADER, isLoopback } from './dev-identity.js';
export {
  type Identity,
  type IdentityHook,
  type IdentityOptions,
  identityFrom,
  requireIdentity,
} from './identity.js';
export type { JwtSettings } from './jwt-identity.js';
export type { OidcSettings } from './oidc-login.js';
