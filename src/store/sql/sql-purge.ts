import type { SqlDriver, SqlValue } from './sql-driver.js';
import { placeholders } from './sql-rows.js';
import { dropSessions } from './sql-session-writes.js';

/**
 * Tables whose rows expire on their own, with the columns of their primary key and the
 * column that says when a row ends (indexed: the purge reads the oldest rows first).
 */
const EXPIRING: { table: string; key: string[]; column: string; retained?: true }[] = [
  { table: 'hp_effects', key: ['key'], column: 'expires_at' },
  { table: 'hp_requests', key: ['key'], column: 'expires_at' },
  { table: 'hp_rate_windows', key: ['key', 'window_start'], column: 'expires_at' },
  { table: 'hp_memories', key: ['app', 'user_id', 'source_id'], column: 'expires_at' },
  { table: 'hp_user_state', key: ['app', 'user_id', 'key'], column: 'expires_at' },
  { table: 'hp_deliveries', key: ['delivery_id'], column: 'expires_at' },
  { table: 'hp_relay', key: ['id'], column: 'expires_at' },
  { table: 'hp_delegations', key: ['user_id'], column: 'until_at' },
  { table: 'hp_listened', key: ['channel'], column: 'until_at' },
  // Listed (not in force) for a while after they expire: the store's retention.
  { table: 'hp_grants', key: ['grant_id'], column: 'expires_at', retained: true },
];

/**
 * Removes up to `limit` rows of `table` that ended by `now`, oldest first: their keys are
 * read from the table's end index, then those rows deleted by primary key, each only if
 * it has still ended. A row written again meanwhile stays (one DELETE with a subquery
 * does not re-check that on PostgreSQL: a row it waited for is deleted even though renewed).
 */
async function purgeTable(
  db: SqlDriver,
  { table, key, column }: (typeof EXPIRING)[number],
  now: number,
  limit: number,
): Promise<number> {
  const { rows } = await db.query(
    `SELECT ${key.join(', ')} FROM ${table} WHERE ${column} <= $1 ORDER BY ${column} LIMIT $2`,
    [now, limit],
  );
  if (rows.length === 0) return 0;
  const values: SqlValue[] = [now, ...rows.flatMap((row) => key.map((name) => row[name] ?? null))];
  // One key column: an IN list; more: one primary-key match per row.
  const byKey =
    key.length === 1
      ? `${key.join('')} IN (${placeholders(rows.length, 2)})`
      : `(${rows
          .map((_, i) => key.map((name, j) => `${name} = $${2 + i * key.length + j}`).join(' AND '))
          .map((match) => `(${match})`)
          .join(' OR ')})`;
  const { changes } = await db.query(
    `DELETE FROM ${table} WHERE ${column} <= $1 AND ${byKey}`,
    values,
  );
  return changes;
}

/**
 * A user's state lives as long as any session of the user in its app: the rows of up to
 * `limit` ended ones whose user still has a session are carried on to that session's
 * end, so the purge leaves them, and no commit has to carry them along.
 */
async function carryUserState(db: SqlDriver, now: number, limit: number): Promise<void> {
  await db.query(
    `UPDATE hp_user_state SET expires_at = (SELECT MAX(s.expires_at) FROM hp_sessions s
        WHERE s.app = hp_user_state.app AND s.user_id = hp_user_state.user_id)
      WHERE (app, user_id, key) IN (SELECT app, user_id, key FROM hp_user_state
          WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)
        AND EXISTS (SELECT 1 FROM hp_sessions s WHERE s.app = hp_user_state.app
          AND s.user_id = hp_user_state.user_id AND s.expires_at > $1)`,
    [now, limit],
  );
}

/**
 * Removes what outlived its retention by `now`, at most `limit` rows per table: sessions
 * past their lifetime (their rows cascade; approvals still waiting leave the counts in
 * the same transaction), then each expiring table's old rows (grants `retainMs` after
 * they expire; a user's state once no session of the user lives). Answers how many
 * rows went.
 */
export async function purgeExpired(
  db: SqlDriver,
  now: number,
  limit: number,
  retainMs: number,
): Promise<number> {
  let removed = await db.transaction(async (tx) => {
    const { rows } = await tx.query(
      'SELECT session_id FROM hp_sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2',
      [now, limit],
    );
    return dropSessions(
      tx,
      rows.map((row) => String(row.session_id)),
      now,
    );
  });
  await carryUserState(db, now, limit);
  for (const table of EXPIRING) {
    removed += await purgeTable(db, table, table.retained ? now - retainMs : now, limit);
  }
  return removed;
}
