import type { Server } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type ClientMetadata } from 'oidc-provider';

/** A person the provider knows: who they are and the roles their tokens carry. */
export interface Person {
  id: string;
  roles: string[];
}

/** Holdpoint as a client of the provider: its id, its secret if confidential, its callback. */
export interface ProviderClient {
  clientId: string;
  /** Without one the client is public (PKCE only, as the provider requires then). */
  clientSecret?: string;
  redirectUrl: string;
}

/** The API audience the provider issues JWT access tokens for. */
export const API_AUDIENCE = 'https://holdpoint.test/api';

/**
 * Test support: a real OpenID Connect provider (the `oidc-provider` package) on a local
 * port, with its development login and consent pages (any password), the given people
 * (a `roles` claim in their ID tokens and access tokens) and clients. Access tokens are
 * JWTs for `API_AUDIENCE`, so a Holdpoint whose `--jwt-audience` is that audience keeps
 * the access token, and one whose audience is its client id keeps the ID token.
 */
export class IdentityProvider {
  private constructor(
    private readonly server: Server,
    readonly issuer: string,
  ) {}

  /** Starts on `port` of 127.0.0.1; the issuer is named `http://localhost:<port>`. */
  static async start(
    port: number,
    people: Person[],
    clients: ProviderClient[],
  ): Promise<IdentityProvider> {
    // localhost for the provider, 127.0.0.1 for Holdpoint: two sites, as in real life,
    // so neither sees the other's cookies.
    const issuer = `http://localhost:${port}`;
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const signingKey = {
      ...(await exportJWK(privateKey)),
      kid: 'idp-key',
      alg: 'RS256',
      use: 'sig',
    };
    const rolesOf = (id: string) => people.find((person) => person.id === id)?.roles ?? [];
    const provider = new Provider(issuer, {
      jwks: { keys: [signingKey] },
      cookies: { keys: ['identity-provider-test-cookies'] },
      clients: clients.map(
        (client): ClientMetadata => ({
          client_id: client.clientId,
          redirect_uris: [client.redirectUrl],
          response_types: ['code'],
          grant_types: ['authorization_code'],
          ...(client.clientSecret
            ? {
                client_secret: client.clientSecret,
                token_endpoint_auth_method: 'client_secret_basic',
              }
            : { token_endpoint_auth_method: 'none' }),
        }),
      ),
      // Every client must use PKCE, confidential ones included.
      pkce: { required: () => true },
      findAccount: (_ctx, id) => {
        if (!people.some((person) => person.id === id)) return undefined;
        return { accountId: id, claims: () => ({ sub: id, roles: rolesOf(id) }) };
      },
      claims: { openid: ['sub', 'roles'] },
      // Scope claims in the ID token too (the code flow would keep them for userinfo).
      conformIdTokenClaims: false,
      features: {
        devInteractions: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => API_AUDIENCE,
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({
            scope: 'openid',
            audience: API_AUDIENCE,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 10 * 60,
          }),
        },
      },
      extraTokenClaims: (_ctx, token) =>
        'accountId' in token && typeof token.accountId === 'string'
          ? { roles: rolesOf(token.accountId) }
          : undefined,
      ttl: {
        AccessToken: 10 * 60,
        IdToken: 10 * 60,
        Interaction: 10 * 60,
        Grant: 60 * 60,
        Session: 60 * 60,
      },
    });
    const server = provider.listen(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    return new IdentityProvider(server, issuer);
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
  }
}
