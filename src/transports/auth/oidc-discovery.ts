import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';

/** What the sign-in needs of an OpenID provider's metadata. */
const providerMetadata = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string().url(),
  token_endpoint: z.string().url(),
  jwks_uri: z.string().url(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
});

/** An OpenID provider's endpoints, as its discovery document names them. */
export type ProviderMetadata = z.infer<typeof providerMetadata>;

/** How long a request to the provider may take. */
export const PROVIDER_TIMEOUT_MS = 10_000;

async function discover(issuer: string): Promise<ProviderMetadata> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch {
    throw new HoldpointError(
      'AUTH_UNAVAILABLE',
      'The identity provider cannot be reached now; try again.',
      { url },
    );
  }
  const parsed = providerMetadata.safeParse(response.ok ? await response.json().catch(() => 0) : 0);
  if (!parsed.success) {
    throw new HoldpointError(
      'AUTH_UNAVAILABLE',
      `The identity provider's discovery document (${url}) is not usable (HTTP ${response.status}).`,
      { url },
    );
  }
  const metadata = parsed.data;
  // OpenID Connect Discovery 1.0 §4.3: the document must be the issuer's own.
  if (metadata.issuer !== issuer) {
    throw new HoldpointError(
      'AUTH_UNAVAILABLE',
      `The discovery document names issuer ${metadata.issuer}, not ${issuer} (--jwt-issuer).`,
      { url },
    );
  }
  const methods = metadata.code_challenge_methods_supported;
  if (methods && !methods.includes('S256')) {
    throw new HoldpointError(
      'AUTH_UNAVAILABLE',
      'The identity provider does not support PKCE with S256, which the sign-in requires.',
      { url },
    );
  }
  return metadata;
}

/**
 * The metadata of the OpenID provider `issuer`, read from
 * `<issuer>/.well-known/openid-configuration` on first use and kept from then on; a
 * failed read (AUTH_UNAVAILABLE) is tried again on the next use. The document must name
 * `issuer` itself and, if it lists PKCE methods, S256.
 */
export function oidcDiscovery(issuer: string): () => Promise<ProviderMetadata> {
  let known: Promise<ProviderMetadata> | undefined;
  return () => {
    known ??= discover(issuer).catch((error: unknown) => {
      known = undefined;
      throw error;
    });
    return known;
  };
}
