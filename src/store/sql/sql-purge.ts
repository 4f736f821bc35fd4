import type { SqlDriver } from './sql-driver.js';
import { dropSessions } from './sql-session-writes.js';

/** Tables whose rows expire on their own (`expires_at`), with the key that names a row. */
const EXPIRING: { table: string; key: string; column: string }[] = [
  { table: 'hp_effects', key: 'key', column: 'expires_at' },
  { table: 'hp_requests', key: 'key', column: 'expires_at' },
  { table: 'hp_rate_windows', key: '(key, window_start)', column: 'expires_at' },
  { table: 'hp_memories', key: '(app, user_id, source_id)', column: 'expires_at' },
  { table: 'hp_user_state', key: '(app, user_id, key)', column: 'expires_at' },
  { table: 'hp_deliveries', key: 'delivery_id', column: 'expires_at' },
  { table: 'hp_relay', key: 'id', column: 'expires_at' },
  { table: 'hp_delegations', key: 'user_id', column: 'until_at' },
];

/**
 * Removes what outlived its retention by `now`, at most `limit` rows per table: sessions
 * past their lifetime (their rows cascade; approvals still waiting leave the counts in
 * the same transaction), then each expiring table's old rows. Answers how many rows went.
 */
export async function purgeExpired(db: SqlDriver, now: number, limit: number): Promise<number> {
  let removed = await db.transaction(async (tx) => {
    const { rows } = await tx.query(
      'SELECT session_id FROM hp_sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2',
      [now, limit],
    );
    return dropSessions(
      tx,
      rows.map((row) => String(row.session_id)),
    );
  });
  for (const { table, key, column } of EXPIRING) {
    const { changes } = await db.query(
      `DELETE FROM ${table} WHERE ${key} IN
        (SELECT ${key} FROM ${table} WHERE ${column} <= $1 LIMIT $2)`,
      [now, limit],
    );
    removed += changes;
  }
  return removed;
}
