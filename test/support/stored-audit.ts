import type { AuditEntry } from '../../src/core/types.js';
import { decodeRecord, encodeRecord } from '../../src/store/record-codec.js';
import type { RedisScratch } from '../../src/store/redis/redis-scratch.test-support.js';

/**
 * A session's audit lines and meta as stored in Redis under `scratch`'s prefix, for a
 * test playing an attacker who can write the store (not the signing key): read the
 * lines, write them over, and point the session's head where the chain code would.
 */
export function storedAudit(scratch: RedisScratch, sessionId: string) {
  const auditKey = `${scratch.prefix}:{s:${sessionId}}:audit`;
  const metaKey = `${scratch.prefix}:{s:${sessionId}}:meta`;
  return {
    auditKey,
    lines: async (): Promise<AuditEntry[]> =>
      (await scratch.redis.lrange(auditKey, 0, -1)).map((json) =>
        decodeRecord('audit', json, sessionId),
      ),
    /** Writes `lines` over the stored ones from index `from` on. */
    overwrite: async (from: number, lines: readonly AuditEntry[]) => {
      for (const [index, line] of lines.entries()) {
        await scratch.redis.lset(auditKey, from + index, encodeRecord('audit', line));
      }
    },
    /** Points the session's head at `hash`, as the chain code would have. */
    setHead: async (hash: string) => {
      const meta = decodeRecord(
        'meta',
        (await scratch.redis.hget(metaKey, 'data')) ?? '',
        sessionId,
      );
      await scratch.redis.hset(metaKey, 'data', encodeRecord('meta', { ...meta, auditHead: hash }));
    },
  };
}
