import type { AuditEntry } from '../../src/core/types.js';
import { encodeRecord } from '../../src/store/record-codec.js';
import { decodeAudit } from '../../src/store/redis/redis-record-codec.js';
import type { RedisScratch } from '../../src/store/redis/redis-scratch.test-support.js';

/**
 * The lines of a Redis session record (lua/commit-session.lua) that hold the tokens of its
 * log (what each item is: '.' an audit line) and its meta record.
 */
const TOKENS_LINE = 4;
const META_LINE = 11;

/**
 * A session's audit lines and meta as stored in Redis under `scratch`'s prefix, for a
 * test playing an attacker who can write the store (not the signing key): read the
 * lines, write them over, cut them short or delete them, and point the session's head
 * where the chain code would. The audit lines are items of the session's log, beside its
 * events; the record says which.
 */
export function storedAudit(scratch: RedisScratch, sessionId: string) {
  const logKey = `${scratch.prefix}:{s:${sessionId}}:events`;
  const recordKey = `${scratch.prefix}:{s:${sessionId}}:record`;
  const recordLines = async () => ((await scratch.redis.get(recordKey)) ?? '').split('\n');
  /** The log's positions of the audit lines, in order. */
  const positions = async () =>
    (((await recordLines())[TOKENS_LINE] ?? '').split(' ') ?? []).flatMap((token, i) =>
      token === '.' ? [i] : [],
    );
  /** Rewrites the log and its tokens without the audit lines from the `keep`-th on. */
  const keepOnly = async (keep: number) => {
    const lines = await recordLines();
    const tokens = (lines[TOKENS_LINE] ?? '').split(' ');
    const items = await scratch.redis.lrange(logKey, 0, -1);
    const expiresAt = await scratch.redis.pexpiretime(logKey);
    let audit = 0;
    const kept = tokens.flatMap((token, i) =>
      token !== '.' || audit++ < keep ? [[token, items[i] as string] as const] : [],
    );
    await scratch.redis.del(logKey);
    if (kept.length > 0) {
      await scratch.redis.rpush(logKey, ...kept.map(([, item]) => item));
      await scratch.redis.pexpireat(logKey, expiresAt);
    }
    lines[TOKENS_LINE] = kept.map(([token]) => token).join(' ');
    await scratch.redis.set(recordKey, lines.join('\n'), 'KEEPTTL');
  };
  return {
    lines: async (): Promise<AuditEntry[]> => {
      const items = await scratch.redis.lrange(logKey, 0, -1);
      return (await positions()).map((at) => decodeAudit(items[at] as string, sessionId));
    },
    /** Writes `lines` over the stored ones from index `from` on. */
    overwrite: async (from: number, lines: readonly AuditEntry[]) => {
      const at = await positions();
      for (const [index, line] of lines.entries()) {
        await scratch.redis.lset(logKey, at[from + index] as number, encodeRecord('audit', line));
      }
    },
    /** Drops the stored lines from index `keep` on. */
    cut: (keep: number) => keepOnly(keep),
    /** Drops every stored line. */
    deleteAll: () => keepOnly(0),
    /** Points the session's head at `hash`, as the chain code would have. */
    setHead: async (hash: string) => {
      const lines = await recordLines();
      const meta = JSON.parse(lines[META_LINE] ?? '{}');
      lines[META_LINE] = JSON.stringify({ ...meta, auditHead: hash });
      await scratch.redis.set(recordKey, lines.join('\n'), 'KEEPTTL');
    },
  };
}
