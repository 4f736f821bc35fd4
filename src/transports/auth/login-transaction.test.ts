import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOGIN_TRANSACTION_SECONDS, loginTransactionSeal } from './login-transaction.js';

const transaction = {
  state: 'state-1',
  nonce: 'nonce-1',
  verifier: 'verifier-1',
  returnTo: '/approvals',
  redirectUrl: 'http://127.0.0.1:3000/auth/callback',
};
const SECRET = 'a-cookie-secret-of-at-least-32-characters';

afterEach(() => {
  vi.useRealTimers();
});

describe('loginTransactionSeal', () => {
  it('opens what it sealed, and hides what it holds', async () => {
    const seal = loginTransactionSeal();
    const sealed = await seal.seal(transaction);
    expect(await seal.open(sealed)).toEqual(transaction);
    for (const part of sealed.split('.')) {
      expect(Buffer.from(part, 'base64url').toString('latin1')).not.toContain('verifier-1');
    }
  });

  it('opens nothing changed, sealed under another key, or too old', async () => {
    const seal = loginTransactionSeal(SECRET);
    const sealed = await seal.seal(transaction);
    const parts = sealed.split('.');
    // One bit of the ciphertext flipped (a character swapped could leave it as it was).
    const ciphertext = Buffer.from(parts[3] ?? '', 'base64url');
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    parts[3] = ciphertext.toString('base64url');
    expect(await seal.open(parts.join('.'))).toBeUndefined();
    expect(await seal.open('not a transaction')).toBeUndefined();
    expect(await loginTransactionSeal().open(sealed)).toBeUndefined();
    expect(await loginTransactionSeal(`${SECRET}!`).open(sealed)).toBeUndefined();

    vi.useFakeTimers({ now: Date.now() + (LOGIN_TRANSACTION_SECONDS + 1) * 1000 });
    expect(await seal.open(sealed)).toBeUndefined();
  });

  it('shares a secret across instances: any of them opens what another sealed', async () => {
    const sealed = await loginTransactionSeal(SECRET).seal(transaction);
    expect(await loginTransactionSeal(SECRET).open(sealed)).toEqual(transaction);
  });
});
