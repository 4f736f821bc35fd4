import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
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
 * WebSocket as its subprotocol or `access_token`) maps to a principal and its roles.
 * Keys are kept hashed; they are compared in constant time.
 */
export function apiKeyIdentity(entries: ApiKeyEntry[]): Authenticator {
  const known = entries.map((entry) => {
    const parsed = apiKeyEntry.parse(entry);
    return { ...parsed, digest: Buffer.from(parsed.hash.slice('sha256:'.length), 'hex') };
  });
  return async ({ request }) => {
    const key = request.headers.get('x-api-key') ?? bearerToken(request);
    if (!key) return undefined;
    const digest = Buffer.from(hashApiKey(key).slice('sha256:'.length), 'hex');
    const match = known.find((entry) => timingSafeEqual(entry.digest, digest));
    if (!match) throw new HoldpointError('UNAUTHENTICATED', 'This API key is not known.');
    return { id: match.principal, roles: match.roles };
  };
}
