import { hash } from 'node:crypto';

/**
 * JSON with object keys sorted, so equal values always serialize the same way; fields
 * that are undefined are left out, as JSON leaves them. Written as one pass of string
 * building: it is on every commit's path (each audit line's hash).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      // A hole is left empty, as Array.prototype.join leaves it.
      if (i in value) out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const field = record[key];
    if (field === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(field)}`;
  }
  return `${out}}`;
}

/** `sha256:` and the hex SHA-256 of a JSON value's canonical form: equal values, equal hashes. */
export function hashJson(value: unknown): string {
  // One call (crypto.hash), not a Hash object per value: it is on every commit's path.
  return `sha256:${hash('sha256', canonicalJson(value))}`;
}

/** sha256 of a tool call's arguments, as written in the audit log. */
export function hashArgs(args: unknown): string {
  return hashJson(args);
}
