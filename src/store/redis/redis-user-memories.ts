import { decodeRecord, encodeRecord } from '../record-codec.js';
import type { StoredMemory, UserMemories } from '../user-memories.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/** A user's memories in one hash (field: source id), beside their `user:` state. */
export class RedisUserMemories implements UserMemories {
  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly userTtlMs: number,
  ) {}

  put(app: string, userId: string, sourceId: string, memories: StoredMemory[]): Promise<void> {
    const key = this.keys.userMemories(app, userId);
    return this.conn.write(async (redis) => {
      await this.conn.exec(
        redis
          .multi()
          .hset(key, sourceId, encodeRecord('memories', memories))
          .pexpire(key, this.userTtlMs),
      );
    });
  }

  list(app: string, userId: string): Promise<StoredMemory[]> {
    return this.conn.run(async (redis) => {
      const stored = await redis.hvals(this.keys.userMemories(app, userId));
      return stored.flatMap((json) => decodeRecord('memories', json, userId));
    });
  }
}
