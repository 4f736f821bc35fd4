import type { AuditEntry } from '../../src/core/types.js';
import { encodeRecord } from '../../src/store/record-codec.js';
import { decodeAudit } from '../../src/store/redis/redis-record-codec.js';
import type { RedisScratch } from '../../src/store/redis/redis-scratch.test-support.js';

/** The line of a Redis session record that holds its meta record (lua/commit-session.lua). */
const META_LINE = 11;

/**
 * A session's audit lines and meta as stored in Redis under `scratch`'s prefix, for a
 * test playing an attacker who can write the store (not the signing key): read the
 * lines, write them over, and point the session's head where the chain code would.
 */
export function storedAudit(scratch: RedisScratch, sessionId: string) {
  const auditKey = `${scratch.prefix}:{s:${sessionId}}:audit`;
  const recordKey = `${scratch.prefix}:{s:${sessionId}}:record`;
  return {
    auditKey,
    lines: async (): Promise<AuditEntry[]> =>
      (await scratch.redis.lrange(auditKey, 0, -1)).map((json) => decodeAudit(json, sessionId)),
    /** Writes `lines` over the stored ones from index `from` on. */
    overwrite: async (from: number, lines: readonly AuditEntry[]) => {
      for (const [index, line] of lines.entries()) {
        await scratch.redis.lset(auditKey, from + index, encodeRecord('audit', line));
      }
    },
    /** Points the session's head at `hash`, as the chain code would have. */
    setHead: async (hash: string) => {
      const lines = ((await scratch.redis.get(recordKey)) ?? '').split('\n');
      const meta = JSON.parse(lines[META_LINE] ?? '{}');
      lines[META_LINE] = JSON.stringify({ ...meta, auditHead: hash });
      await scratch.redis.set(recordKey, lines.join('\n'), 'KEEPTTL');
    },
  };
}
