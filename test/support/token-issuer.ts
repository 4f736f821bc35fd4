import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** What a token says beyond who it is for. */
export interface TokenClaims {
  roles?: string[];
  /** Seconds until it expires; negative for a token that has expired. Default 600. */
  expiresIn?: number;
  /** Default: the issuer's audience. */
  audience?: string;
}

/**
 * Test support: an OpenID-style token issuer on a local port: it serves its JSON Web
 * Key Set and signs RS256 tokens (jose), as an identity provider would for the
 * server's `jwt` sign-in.
 */
export class TokenIssuer {
  readonly issuer = 'https://issuer.holdpoint.test';
  readonly audience = 'holdpoint-test';

  private constructor(
    private readonly server: Server,
    private readonly privateKey: CryptoKey,
    readonly jwksUrl: string,
  ) {}

  static async start(): Promise<TokenIssuer> {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return new TokenIssuer(server, privateKey, `http://127.0.0.1:${port}/jwks.json`);
  }

  /** A signed token for `subject`. */
  token(subject: string, claims: TokenClaims = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ roles: claims.roles ?? [] })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setSubject(subject)
      .setIssuer(this.issuer)
      .setAudience(claims.audience ?? this.audience)
      .setIssuedAt(now - 60)
      .setExpirationTime(now + (claims.expiresIn ?? 600))
      .sign(this.privateKey);
  }

  /** `--auth jwt` flags that trust this issuer. */
  flags(): string[] {
    return [
      '--auth',
      'jwt',
      '--jwt-jwks-url',
      this.jwksUrl,
      '--jwt-issuer',
      this.issuer,
      '--jwt-audience',
      this.audience,
    ];
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
  }
}
