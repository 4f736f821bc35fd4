import { EncryptJWT, jwtDecrypt } from 'jose';
import { z } from 'zod';

/** One sign-in between `/auth/login` and `/auth/callback`: what the callback checks. */
const loginTransaction = z.strictObject({
  /** Sent as `state`; the callback's must match (CSRF on the callback). */
  state: z.string(),
  /** Sent as `nonce`; the ID token's must match (token replay). */
  nonce: z.string(),
  /** The PKCE code verifier; only its S256 challenge was sent. */
  verifier: z.string(),
  /** Where the browser goes once signed in: a path of this site. */
  returnTo: z.string(),
  /** The `redirect_uri` sent, which the code exchange must repeat. */
  redirectUrl: z.string(),
});
export type LoginTransaction = z.infer<typeof loginTransaction>;

/** How long a sign-in may take, from `/auth/login` to the callback. */
export const LOGIN_TRANSACTION_SECONDS = 10 * 60;

const KEY_LABEL = new TextEncoder().encode('holdpoint oidc login transaction');

/** A 256-bit key for `secret` (HKDF-SHA-256), or a random one without a secret. */
async function keyFor(secret: string | undefined): Promise<Uint8Array> {
  if (secret === undefined) return crypto.getRandomValues(new Uint8Array(32));
  const material = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    'HKDF',
    false,
    ['deriveBits'],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: KEY_LABEL },
    material,
    256,
  );
  return new Uint8Array(bits);
}

/** Seals sign-ins into cookie values and opens them again. */
export interface LoginTransactionSeal {
  /** The transaction encrypted and authenticated, valid for LOGIN_TRANSACTION_SECONDS. */
  seal(transaction: LoginTransaction): Promise<string>;
  /** The transaction `sealed` holds; undefined when it was not sealed here, was changed, or expired. */
  open(sealed: string): Promise<LoginTransaction | undefined>;
}

/**
 * Sign-in transactions as cookie values: JWTs encrypted with AES-256-GCM (jose, `dir`),
 * so the browser holds them but can neither read the PKCE verifier nor forge or alter
 * one. The key comes from `secret` — every instance given the same secret opens what
 * any of them sealed — or, without one, is random to this process.
 */
export function loginTransactionSeal(secret?: string): LoginTransactionSeal {
  const key = keyFor(secret);
  return {
    seal: async (transaction) =>
      new EncryptJWT({ ...transaction })
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
        .setIssuedAt()
        .setExpirationTime(`${LOGIN_TRANSACTION_SECONDS}s`)
        .encrypt(await key),
    open: async (sealed) => {
      try {
        const { payload } = await jwtDecrypt(sealed, await key, {
          keyManagementAlgorithms: ['dir'],
          contentEncryptionAlgorithms: ['A256GCM'],
        });
        const { iat: _iat, exp: _exp, ...fields } = payload;
        const parsed = loginTransaction.safeParse(fields);
        return parsed.success ? parsed.data : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
