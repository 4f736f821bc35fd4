import type { Pause } from '../../core/types.js';
import { decodeRecord } from '../record-codec.js';
import { waitingOf } from '../waiting-counts.js';
import {
  type CommitRows,
  commitRows,
  SESSION_COLUMNS,
  type SessionCommit,
} from './sql-commit-rows.js';
import type { SqlQueries, SqlValue } from './sql-driver.js';
import { insertRows, placeholders } from './sql-rows.js';

/** Between an app's name and a tool's in a waiting key (see waitingKey). */
const SEPARATOR = '\u001f';

/**
 * Moves the waiting counts by `changes` (key → by), never below zero, in key order so
 * commits touching the same counts lock them in the same order.
 */
export async function moveWaiting(tx: SqlQueries, changes: Map<string, number>): Promise<void> {
  for (const key of [...changes.keys()].sort()) {
    const by = changes.get(key) ?? 0;
    if (by === 0) continue;
    const at = key.indexOf(SEPARATOR);
    await tx.query(
      `INSERT INTO hp_waiting (app, tool, count)
       VALUES ($1, $2, CASE WHEN CAST($3 AS BIGINT) > 0 THEN CAST($3 AS BIGINT) ELSE 0 END)
       ON CONFLICT (app, tool) DO UPDATE SET count = CASE
         WHEN hp_waiting.count + CAST($3 AS BIGINT) > 0 THEN hp_waiting.count + CAST($3 AS BIGINT)
         ELSE 0 END`,
      [key.slice(0, at), key.slice(at + 1), by],
    );
  }
}

/**
 * Deletes those of sessions `ids` whose lifetime ended by `now`, with everything of
 * theirs (the foreign keys cascade), taking the approvals still waiting on their pauses
 * out of the waiting counts first. The rows are locked and their lifetime read again
 * first: a commit that carried a session on since it was picked keeps it, and its
 * counts. Answers how many went.
 */
export async function dropSessions(tx: SqlQueries, ids: string[], now: number): Promise<number> {
  if (ids.length === 0) return 0;
  const { rows: ended } = await tx.query(
    `UPDATE hp_sessions SET version = version
      WHERE session_id IN (${placeholders(ids.length, 2)}) AND expires_at <= $1
      RETURNING session_id`,
    [now, ...ids],
  );
  const gone = ended.map((row) => String(row.session_id)).sort();
  if (gone.length === 0) return 0;
  const list = placeholders(gone.length);
  const { rows } = await tx.query(
    `SELECT s.session_id, p.record FROM hp_sessions s
       JOIN hp_pauses p ON p.session_id = s.session_id AND p.pause_id = s.pause_id
      WHERE s.session_id IN (${list}) AND s.status = 'paused'`,
    gone,
  );
  const changes = new Map<string, number>();
  for (const row of rows) {
    let pause: Pause;
    try {
      pause = decodeRecord('pause', String(row.record), String(row.session_id));
    } catch {
      continue; // A record this release cannot read counted nothing it knows of.
    }
    for (const [key, count] of waitingOf(pause)) changes.set(key, (changes.get(key) ?? 0) - count);
  }
  await moveWaiting(tx, changes);
  return (await tx.query(`DELETE FROM hp_sessions WHERE session_id IN (${list})`, gone)).changes;
}

/**
 * Writes one commit of a session in `tx` (the caller's transaction), statement by
 * statement: the session row as a compare-and-set on its version (or inserted, when
 * new), with the index columns the commit makes true, then its pauses, approvals, runs,
 * audit lines, events, state, who may decide, waiting counts and deliveries. False,
 * having written nothing, when the session moved on, aged out, or (new) exists.
 */
export async function writeSession(tx: SqlQueries, commit: SessionCommit): Promise<boolean> {
  const { sessionId, writes, now } = commit;
  const { meta } = writes;
  const rows = commitRows(commit);
  let bases: { audit: number; event: number } | undefined;
  if (commit.version === 'new') {
    const { rows: expired } = await tx.query(
      'SELECT session_id FROM hp_sessions WHERE session_id = $1 AND expires_at <= $2',
      [sessionId, now],
    );
    if (expired.length > 0) await dropSessions(tx, [sessionId], now);
    const { rows: inserted } = await tx.query(
      `INSERT INTO hp_sessions (${SESSION_COLUMNS.join(', ')}, session_id, app, user_id, version,
         audit_count, event_count, keep_until, expires_at)
       VALUES (${placeholders(17)})
       ON CONFLICT (session_id) DO NOTHING RETURNING version`,
      [
        ...rows.session,
        sessionId,
        meta.app,
        meta.userId,
        1,
        rows.audit.length,
        rows.events.length,
        rows.keepUntil,
        rows.living,
      ],
    );
    if (inserted.length === 0) return false;
    bases = { audit: 0, event: 0 };
  } else {
    const { rows: updated } = await tx.query(
      `UPDATE hp_sessions SET version = version + 1, meta = $1, commit_ids = $2, pause_id = $3,
         invocation_id = $4, status = $5, paused_until = $6, sla_due_at = $7, lease_until = $8,
         updated_at = $9,
         audit_count = audit_count + $10, event_count = event_count + $11,
         keep_until = CASE WHEN keep_until > $12 THEN keep_until ELSE $12 END,
         expires_at = CASE WHEN keep_until > $13 THEN keep_until ELSE $13 END
       WHERE session_id = $14 AND version = $15 AND expires_at > $16
       RETURNING audit_count - $10 AS audit_base, event_count - $11 AS event_base`,
      [
        ...rows.session,
        rows.audit.length,
        rows.events.length,
        rows.keepUntil,
        rows.living,
        sessionId,
        commit.version,
        now,
      ],
    );
    const row = updated[0];
    if (!row) return false;
    bases = { audit: Number(row.audit_base), event: Number(row.event_base) };
  }
  await writeChildren(tx, commit, rows, bases);
  return true;
}

/** Everything of a commit below the session row, once the row holds it. */
async function writeChildren(
  tx: SqlQueries,
  commit: SessionCommit,
  rows: CommitRows,
  bases: { audit: number; event: number },
): Promise<void> {
  const { sessionId } = commit;
  const { meta } = commit.writes;
  const upsert = (head: string, width: number, values: SqlValue[][], tail = '') =>
    values.length > 0 ? insertRows(tx, head, width, values, tail) : undefined;
  await upsert(
    'INSERT INTO hp_pauses (session_id, pause_id, record)',
    3,
    rows.pauses.map((pause) => [sessionId, ...pause]),
    'ON CONFLICT (session_id, pause_id) DO UPDATE SET record = excluded.record',
  );
  await upsert(
    'INSERT INTO hp_approvals (approval_id, session_id)',
    2,
    rows.approvals.map((approvalId) => [approvalId, sessionId]),
    'ON CONFLICT (approval_id) DO NOTHING',
  );
  await upsert(
    'INSERT INTO hp_runs (invocation_id, session_id, record)',
    3,
    rows.runs.map(([invocationId, record]) => [invocationId, sessionId, record]),
    'ON CONFLICT (invocation_id) DO UPDATE SET record = excluded.record',
  );
  if (rows.audiences) {
    await tx.query('DELETE FROM hp_paused_for WHERE session_id = $1', [sessionId]);
    await upsert(
      'INSERT INTO hp_paused_for (audience, paused_until, session_id)',
      3,
      rows.audiences.map((audience) => [...audience, sessionId]),
      'ON CONFLICT DO NOTHING',
    );
  }
  await upsert(
    'INSERT INTO hp_audit (session_id, seq, line)',
    3,
    rows.audit.map((line, i) => [sessionId, bases.audit + i, line]),
  );
  // Every event gets a sequence number past the session's last; one stored before keeps
  // its own (and its place), its body replaced.
  await upsert(
    'INSERT INTO hp_events (session_id, seq, event_id, event)',
    4,
    rows.events.map(([eventId, event], i) => [sessionId, bases.event + i, eventId, event]),
    'ON CONFLICT (session_id, event_id) DO UPDATE SET event = excluded.event',
  );
  await upsert(
    'INSERT INTO hp_session_state (session_id, key, value)',
    3,
    rows.sessionState.map((entry) => [sessionId, ...entry]),
    'ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value',
  );
  await upsert(
    'INSERT INTO hp_app_state (app, key, value)',
    3,
    rows.appState.map((entry) => [meta.app, ...entry]),
    'ON CONFLICT (app, key) DO UPDATE SET value = excluded.value',
  );
  // A user's state outlives this session while another of the user's lives: the purge
  // keeps it for them (so no commit carries it along).
  await upsert(
    'INSERT INTO hp_user_state (app, user_id, key, value, expires_at)',
    5,
    rows.userState.map((entry) => [meta.app, meta.userId, ...entry, rows.living]),
    `ON CONFLICT (app, user_id, key) DO UPDATE SET value = excluded.value,
       expires_at = CASE WHEN hp_user_state.expires_at > excluded.expires_at
         THEN hp_user_state.expires_at ELSE excluded.expires_at END`,
  );
  await moveWaiting(
    tx,
    new Map(rows.waiting.map(([app, tool, by]) => [`${app}${SEPARATOR}${tool}`, by])),
  );
  await upsert(
    'INSERT INTO hp_deliveries (delivery_id, record, status, due_at, created_at, expires_at)',
    6,
    rows.deliveries,
    'ON CONFLICT (delivery_id) DO NOTHING',
  );
}
