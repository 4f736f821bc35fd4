import { decodeRecord, encodeRecord } from '../record-codec.js';
import type { StoredMemory, UserMemories } from '../user-memories.js';
import type { SqlDriver } from './sql-driver.js';

/**
 * A user's memories in `hp_memories`, one row per source. Every write gives all of the
 * user's rows a full lifetime again (as the Redis hash's expiry is renewed), so they
 * live and go together; rows past it are read as absent.
 */
export class SqlUserMemories implements UserMemories {
  constructor(
    readonly driver: SqlDriver,
    readonly ttlMs: number,
  ) {}

  put(app: string, userId: string, sourceId: string, memories: StoredMemory[]): Promise<void> {
    const now = Date.now();
    return this.driver.transaction(async (tx) => {
      // Memories that expired stay gone: a new write must not bring them back.
      await tx.query(
        'DELETE FROM hp_memories WHERE app = $1 AND user_id = $2 AND expires_at <= $3',
        [app, userId, now],
      );
      await tx.query(
        `INSERT INTO hp_memories (app, user_id, source_id, memories, expires_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (app, user_id, source_id) DO UPDATE SET memories = excluded.memories`,
        [app, userId, sourceId, encodeRecord('memories', memories), now + this.ttlMs],
      );
      await tx.query('UPDATE hp_memories SET expires_at = $3 WHERE app = $1 AND user_id = $2', [
        app,
        userId,
        now + this.ttlMs,
      ]);
    });
  }

  async list(app: string, userId: string): Promise<StoredMemory[]> {
    const { rows } = await this.driver.query(
      `SELECT memories FROM hp_memories WHERE app = $1 AND user_id = $2 AND expires_at > $3
       ORDER BY source_id`,
      [app, userId, Date.now()],
    );
    return rows.flatMap((row) => decodeRecord('memories', row.memories as string, userId));
  }
}
