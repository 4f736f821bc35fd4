import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import { idText } from '../../core/validate.js';
import type { Authenticator } from './authenticator.js';
import { bearerToken } from './credentials.js';

/** One API key as configured: its hash (never the key), who it is, and its roles. */
export const apiKeyEntry = z.strictObject({
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 hex digits>'),
  principal: idText,
  roles: z.array(idText).max(50).default([]),
});
export type ApiKeyEntry = z.input<typeof apiKeyEntry>;

/** The configured keys: `{ "keys": [ … ] }` (a keys file, or HOLDPOINT_API_KEYS). */
export const apiKeysFile = z.strictObject({ keys: z.array(apiKeyEntry).min(1).max(10_000) });

/** How an API key is stored: its sha256, never the key. */
export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

/** A new random API key (`hp_` and 43 url-safe characters) and the entry that admits it. */
export function newApiKey(principal: string, roles: string[]): { key: string; entry: ApiKeyEntry } {
  const key = `hp_${randomBytes(32).toString('base64url')}`;
  return { key, entry: { hash: hashApiKey(key), principal, roles } };
}

/**
 * API keys: a static key (sent as `Authorization: Bearer <key>` or `X-Api-Key`, or on a
 * WebSocket handshake as its subprotocol or `access_token`) maps to a principal and its
 * roles. Never from the web sign-in's cookie: that holds a token of the `jwt` mode.
 * Keys are kept hashed and looked up by their hash, so how long a lookup takes says
 * nothing about any key.
 */
export function apiKeyIdentity(entries: ApiKeyEntry[]): Authenticator {
  const known = new Map<string, z.output<typeof apiKeyEntry>>();
  for (const entry of entries) {
    const parsed = apiKeyEntry.parse(entry);
    // The first entry of a key listed twice is the one that counts.
    if (!known.has(parsed.hash)) known.set(parsed.hash, parsed);
  }
  return async (caller) => {
    const key = caller.request.headers.get('x-api-key') ?? bearerToken(caller);
    if (!key) return undefined;
    const match = known.get(hashApiKey(key));
    if (!match) throw new HoldpointError('UNAUTHENTICATED', 'This API key is not known.');
    return { id: match.principal, roles: match.roles };
  };
}
