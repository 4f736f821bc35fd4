/**
 * JSON text with its ids and hashes packed, for Redis's compact records: a string that is
 * an id with a UUID (`inv-…`, `adk-…`, or a bare UUID) becomes `~` + its prefix + the
 * UUID's 16 bytes in base64url (22 characters), a SHA-256 hash `sha256:…` becomes `~#` +
 * its 32 bytes in base64url, and a string that starts with `~` gets one more. Keys are
 * strings too. unpackJson gives back the same text.
 *
 * It works on the text JSON.stringify writes: a string starts with a quote right after
 * `{`, `[`, `,` or `:`, which no quote inside a string follows (those are escaped), so
 * each pattern is held to whole strings.
 */

/** A quote that opens a string (or a key). */
const OPENS = '(?<=[{[,:])"';

const TILDE = new RegExp(`${OPENS}~`, 'g');
const UUID_ID = new RegExp(
  `${OPENS}([A-Za-z]*-)?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})"`,
  'g',
);
const SHA256 = new RegExp(`${OPENS}sha256:([0-9a-f]{64})"`, 'g');

const PACKED_TILDE = new RegExp(`${OPENS}~~`, 'g');
const PACKED_ID = new RegExp(`${OPENS}~([A-Za-z]*-)?([A-Za-z0-9_-]{22})"`, 'g');
const PACKED_SHA256 = new RegExp(`${OPENS}~#([A-Za-z0-9_-]{43})"`, 'g');

function base64url(hex: string): string {
  return Buffer.from(hex, 'hex').toString('base64url');
}

function hex(base64: string): string {
  return Buffer.from(base64, 'base64url').toString('hex');
}

/** `json` (as JSON.stringify wrote it) with its ids and hashes packed. */
export function packJson(json: string): string {
  return json
    .replace(TILDE, '"~~')
    .replace(
      UUID_ID,
      (_match, prefix: string | undefined, a: string, b: string, c: string, d: string, e: string) =>
        `"~${prefix ?? ''}${base64url(a + b + c + d + e)}"`,
    )
    .replace(SHA256, (_match, digest: string) => `"~#${base64url(digest)}"`);
}

/** The JSON text packJson packed. */
export function unpackJson(packed: string): string {
  return packed
    .replace(PACKED_SHA256, (_match, digest: string) => `"sha256:${hex(digest)}"`)
    .replace(PACKED_ID, (_match, prefix: string | undefined, bytes: string) => {
      const h = hex(bytes);
      const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      return `"${prefix ?? ''}${uuid}"`;
    })
    .replace(PACKED_TILDE, '"~');
}
