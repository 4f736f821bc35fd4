import type { Redis } from 'ioredis';
import type { Grant } from '../../core/grants.js';
import {
  afterGrantCursor,
  decodeGrant,
  encodeGrant,
  grantCursor,
  parseGrantCursor,
} from '../grant-codec.js';
import type { Grants } from '../grants.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/** How many grants one user's call can be covered by, at most, read per check. */
const MAX_IN_FORCE = 200;

/**
 * Grants in Redis: one record per grant (`grant:<id>`), expiring `retainMs` after the
 * grant does; per user, `grants-of:<user>` (scored by creation, for the list) and per
 * user, app and tool `grants-for:[user,app,tool]` (scored by expiry, for the calls it may
 * cover). An index entry whose record is gone is skipped and dropped.
 */
export class RedisGrants implements Grants {
  private readonly setIfUnchanged: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly retainMs: number,
  ) {
    this.setIfUnchanged = conn.script('set-if-unchanged');
  }

  put(grant: Grant): Promise<void> {
    return this.conn.run(async (redis) => {
      const k = this.keys;
      const keepUntil = grant.expiresAt + this.retainMs;
      // Kept once: a grant stored before (a request retried) keeps its record; its index
      // entries are written again (the same ones), in case a first try stopped before them.
      await redis.set(k.grant(grant.grantId), encodeGrant(grant), 'PXAT', keepUntil, 'NX');
      const multi = redis.multi();
      const byUser = k.grantsOf(grant.userId);
      multi.zadd(byUser, grant.createdAt, grant.grantId);
      // Each index lives as long as its latest grant.
      multi.pexpireat(byUser, keepUntil, 'GT');
      multi.pexpireat(byUser, keepUntil, 'NX');
      const byTool = k.grantsFor(grant.userId, grant.app, grant.toolName);
      multi.zadd(byTool, grant.expiresAt, grant.grantId);
      multi.pexpireat(byTool, keepUntil, 'GT');
      multi.pexpireat(byTool, keepUntil, 'NX');
      await this.conn.exec(multi);
    });
  }

  get(grantId: string): Promise<Grant | undefined> {
    return this.conn.run(async (redis) =>
      decodeGrant(await redis.get(this.keys.grant(grantId)), grantId),
    );
  }

  inForce(userId: string, app: string, toolName: string, now: number): Promise<Grant[]> {
    return this.conn.run(async (redis) => {
      const index = this.keys.grantsFor(userId, app, toolName);
      const ids = await redis.zrangebyscore(index, `(${now}`, '+inf', 'LIMIT', 0, MAX_IN_FORCE);
      const grants = await this.read(redis, index, ids);
      return grants.filter((g) => g.revokedAt === undefined && now < g.expiresAt);
    });
  }

  list(
    userId: string,
    limit: number,
    cursor?: string,
  ): Promise<{ grants: Grant[]; next?: string }> {
    return this.conn.run(async (redis) => {
      const index = this.keys.grantsOf(userId);
      const after = cursor === undefined ? undefined : parseGrantCursor(cursor);
      const grants: Grant[] = [];
      // Newest first (ties: the greater id first, as ZREVRANGEBYSCORE gives them), from
      // the cursor's time on; grants of that same time up to the cursor are passed over.
      for (let offset = 0; grants.length <= limit; offset += limit + 1) {
        const ids = await redis.zrevrangebyscore(
          index,
          after ? after.createdAt : '+inf',
          '-inf',
          'LIMIT',
          offset,
          limit + 1,
        );
        const read = await this.read(redis, index, ids);
        grants.push(...read.filter((g) => !after || afterGrantCursor(g, after)));
        if (ids.length < limit + 1) break;
      }
      const page = grants.slice(0, limit);
      const last = page.at(-1);
      return grants.length > limit && last
        ? { grants: page, next: grantCursor(last) }
        : { grants: page };
    });
  }

  revoke(grantId: string, by: string, now: number): Promise<Grant | undefined> {
    return this.conn.run(async (redis) => {
      const key = this.keys.grant(grantId);
      const json = await redis.get(key);
      const grant = decodeGrant(json, grantId);
      if (!grant || grant.revokedAt !== undefined) return grant;
      const revoked: Grant = { ...grant, revokedAt: now, revokedBy: by };
      // Only if nobody revoked it meanwhile: the first revocation is the one kept.
      const replaced = await this.setIfUnchanged([key], [json as string, encodeGrant(revoked)]);
      return replaced === 1 ? revoked : decodeGrant(await redis.get(key), grantId);
    });
  }

  /** The grants `ids` of `index` names, in order; entries whose record is gone are dropped. */
  private async read(redis: Redis, index: string, ids: string[]): Promise<Grant[]> {
    if (ids.length === 0) return [];
    const jsons = await redis.mget(ids.map((id) => this.keys.grant(id)));
    const found: Grant[] = [];
    const gone: string[] = [];
    for (const [i, id] of ids.entries()) {
      try {
        const grant = decodeGrant(jsons[i] ?? null, id);
        if (grant) found.push(grant);
        else gone.push(id);
      } catch {
        // One unreadable record harms only its grant.
      }
    }
    if (gone.length > 0) await redis.zrem(index, ...gone);
    return found;
  }
}
