/**
 * Ids and hashes as Redis's compact records keep them, one string at a time: an id with
 * a UUID (`inv-…`, `adk-…`, or a bare UUID) as `~` + its prefix + the UUID's 16 bytes in
 * base64url (22 characters), a SHA-256 hash `sha256:…` as `~#` + its 32 bytes in
 * base64url, and a string that starts with `~` behind one more; unpackId gives back the
 * same string. The codec applies them to the fields that hold ids and hashes.
 */

const UUID_ID =
  /^([A-Za-z]*-)?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;
const SHA256 = /^sha256:([0-9a-f]{64})$/;
/** A packed UUID: its 16 bytes in base64url. */
const PACKED_UUID = 22;
const TILDE = 126;
const HASH_SIGN = 35;

/** `value` packed when it is a string (see above); anything else as it is. */
export function packId(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const id = value.length >= 36 && value.length <= 60 ? UUID_ID.exec(value) : null;
  if (id) {
    const hex = `${id[2]}${id[3]}${id[4]}${id[5]}${id[6]}`;
    return `~${id[1] ?? ''}${Buffer.from(hex, 'hex').toString('base64url')}`;
  }
  const hash = value.length === 71 ? SHA256.exec(value) : null;
  if (hash) return `~#${Buffer.from(hash[1] as string, 'hex').toString('base64url')}`;
  return value.charCodeAt(0) === TILDE ? `~${value}` : value;
}

/** The value packId packed. */
export function unpackId(value: unknown): unknown {
  if (typeof value !== 'string' || value.charCodeAt(0) !== TILDE) return value;
  if (value.charCodeAt(1) === TILDE) return value.slice(1);
  if (value.charCodeAt(1) === HASH_SIGN) {
    return `sha256:${Buffer.from(value.slice(2), 'base64url').toString('hex')}`;
  }
  const hex = Buffer.from(value.slice(-PACKED_UUID), 'base64url').toString('hex');
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return `${value.slice(1, -PACKED_UUID)}${uuid}`;
}

/** `record` (one of the caller's own) with its `fields` mapped by `map`, in place. */
export function setFields<T extends object>(
  record: T,
  fields: readonly string[],
  map: (value: unknown) => unknown,
): T {
  const out = record as Record<string, unknown>;
  for (const field of fields) {
    if (out[field] !== undefined) out[field] = map(out[field]);
  }
  return record;
}

/** A copy of `record` with its `fields` mapped by `map` (the record is left as it is). */
export function mapFields<T extends object>(
  record: T,
  fields: readonly string[],
  map: (value: unknown) => unknown,
): T {
  return setFields({ ...record }, fields, map);
}
