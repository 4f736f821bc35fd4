import { decodeDelegation, encodeDelegation } from '../delegation-codec.js';
import type { Delegation, Delegations } from '../delegations.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/**
 * Out-of-office delegations in Redis: one record per person, expiring at its `until`,
 * and per delegate a sorted set of who delegated to them, scored by `until` (read from
 * now on; an entry whose record was replaced or cleared is skipped and dropped).
 */
export class RedisDelegations implements Delegations {
  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {}

  set(delegation: Delegation): Promise<void> {
    return this.conn.run(async (redis) => {
      const k = this.keys;
      const key = k.delegation(delegation.userId);
      const earlier = await redis.get(key);
      const previous = earlier === null ? undefined : decodeDelegation(earlier, delegation.userId);
      const multi = redis.multi();
      if (previous && previous.delegate !== delegation.delegate) {
        multi.zrem(k.delegatesTo(previous.delegate), delegation.userId);
      }
      multi.set(key, encodeDelegation(delegation), 'PXAT', delegation.until);
      const index = k.delegatesTo(delegation.delegate);
      multi.zadd(index, delegation.until, delegation.userId);
      // The index lives as long as its latest delegation.
      multi.pexpireat(index, delegation.until, 'GT');
      multi.pexpireat(index, delegation.until, 'NX');
      await multi.exec();
    });
  }

  get(userId: string, now: number): Promise<Delegation | undefined> {
    return this.conn.run(async (redis) => {
      const delegation = decodeDelegation(await redis.get(this.keys.delegation(userId)), userId);
      return delegation && delegation.until > now ? delegation : undefined;
    });
  }

  clear(userId: string): Promise<boolean> {
    return this.conn.run(async (redis) => {
      const key = this.keys.delegation(userId);
      const json = await redis.get(key);
      if (json === null) return false;
      const delegation = decodeDelegation(json, userId);
      const multi = redis.multi().del(key);
      if (delegation) multi.zrem(this.keys.delegatesTo(delegation.delegate), userId);
      await multi.exec();
      return true;
    });
  }

  delegatorsOf(delegate: string, now: number): Promise<Delegation[]> {
    return this.conn.run(async (redis) => {
      const index = this.keys.delegatesTo(delegate);
      const userIds = await redis.zrangebyscore(index, `(${now}`, '+inf', 'LIMIT', 0, 200);
      if (userIds.length === 0) return [];
      const jsons = await redis.mget(userIds.map((userId) => this.keys.delegation(userId)));
      const found: Delegation[] = [];
      for (const [i, userId] of userIds.entries()) {
        let delegation: Delegation | undefined;
        try {
          delegation = decodeDelegation(jsons[i] ?? null, userId);
        } catch {
          continue; // one unreadable record harms only its delegation
        }
        if (delegation?.delegate !== delegate) {
          await redis.zrem(index, userId);
        } else if (delegation.from <= now && now < delegation.until) {
          found.push(delegation);
        }
      }
      return found;
    });
  }
}
