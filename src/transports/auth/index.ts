export { type ApiKeyEntry, apiKeysFile, newApiKey } from './api-key-identity.js';
export { TOKEN_SUBPROTOCOL_PREFIX } from './credentials.js';
export {
  type Identity,
  type IdentityHook,
  type IdentityOptions,
  identityFrom,
  requireIdentity,
} from './identity.js';
export type { JwtSettings } from './jwt-identity.js';
export type { OidcSettings } from './oidc-login.js';
