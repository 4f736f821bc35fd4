import { z } from 'zod';
import { setting } from './setting.js';

const text = z.string().min(1);

/** How callers prove who they are, and the web UI signs in. */
export const SIGN_IN_SETTINGS = {
  auth: setting({
    schema: z.enum(['dev', 'api-keys', 'jwt']),
    default: 'dev',
    flag: 'auth',
    env: 'HOLDPOINT_AUTH',
    placeholder: 'dev|api-keys|jwt',
    doc: 'how callers prove who they are: `dev` (the name in `x-holdpoint-user` or the web UI\'s "Signed in as", believed from this machine only), `api-keys`, `jwt`',
  }),
  apiKeysFile: setting({
    schema: text,
    flag: 'api-keys-file',
    env: 'HOLDPOINT_API_KEYS_FILE',
    placeholder: 'FILE',
    doc: '`api-keys`: a JSON file `{"keys":[{"hash":"sha256:…","principal","roles"}]}` (`holdpoint keys new --principal NAME --roles a,b` makes a key and its entry)',
  }),
  apiKeys: setting({
    schema: text,
    flag: 'api-keys',
    env: 'HOLDPOINT_API_KEYS',
    placeholder: 'JSON',
    doc: '`api-keys`: the same JSON itself, instead of the file (prefer the environment: flags show in `ps`)',
  }),
  jwtJwksUrl: setting({
    schema: z.string().url(),
    flag: 'jwt-jwks-url',
    env: 'HOLDPOINT_JWT_JWKS_URL',
    placeholder: 'URL',
    doc: "`jwt`: where the issuer's keys are",
  }),
  jwtIssuer: setting({
    schema: text,
    flag: 'jwt-issuer',
    env: 'HOLDPOINT_JWT_ISSUER',
    placeholder: 'ISSUER',
    doc: '`jwt`: the `iss` every token must carry',
  }),
  jwtAudience: setting({
    schema: text,
    flag: 'jwt-audience',
    env: 'HOLDPOINT_JWT_AUDIENCE',
    placeholder: 'AUDIENCE',
    doc: '`jwt`: the `aud` every token must carry',
  }),
  jwtPrincipalClaim: setting({
    schema: text,
    default: 'sub',
    flag: 'jwt-principal-claim',
    env: 'HOLDPOINT_JWT_PRINCIPAL_CLAIM',
    placeholder: 'CLAIM',
    doc: '`jwt`: the claim naming the principal (a dotted path)',
  }),
  jwtRolesClaim: setting({
    schema: text,
    default: 'roles',
    flag: 'jwt-roles-claim',
    env: 'HOLDPOINT_JWT_ROLES_CLAIM',
    placeholder: 'CLAIM',
    doc: "`jwt`: the claim naming the principal's roles (a dotted path, e.g. `realm_access.roles`)",
  }),
  oidcClientId: setting({
    schema: text,
    flag: 'oidc-client-id',
    env: 'HOLDPOINT_OIDC_CLIENT_ID',
    placeholder: 'ID',
    doc: '`jwt`: the web UI signs in with the issuer (OpenID Connect) as this client; see [Sign-in](#sign-in)',
    defaultDoc: '— (no web sign-in)',
  }),
  oidcClientSecret: setting({
    schema: text,
    flag: 'oidc-client-secret',
    env: 'HOLDPOINT_OIDC_CLIENT_SECRET',
    placeholder: 'SECRET',
    doc: 'its secret, for a confidential client (prefer the environment: flags show in `ps`)',
    defaultDoc: '— (a public client)',
  }),
  oidcRedirectUrl: setting({
    schema: z.string().url(),
    flag: 'oidc-redirect-url',
    env: 'HOLDPOINT_OIDC_REDIRECT_URL',
    placeholder: 'URL',
    doc: 'the callback registered with the provider; give it behind a proxy that ends TLS',
    defaultDoc: 'the address the browser used + `/auth/callback`',
  }),
  oidcScope: setting({
    schema: text,
    flag: 'oidc-scope',
    env: 'HOLDPOINT_OIDC_SCOPE',
    placeholder: 'SCOPES',
    doc: 'the scopes asked for, space-separated (with `openid`), e.g. one that puts roles in the token',
    defaultDoc: '`openid`',
  }),
  oidcCookieSecret: setting({
    schema: z.string().min(32, 'at least 32 characters'),
    flag: 'oidc-cookie-secret',
    env: 'HOLDPOINT_OIDC_COOKIE_SECRET',
    placeholder: 'SECRET',
    doc: 'at least 32 characters; seals the short cookie of a sign-in in progress: give every instance behind one address the same',
    defaultDoc: 'random per process',
  }),
};
