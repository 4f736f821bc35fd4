import { INBOX_CHANNEL } from '../inbox-news.js';
import {
  type CommitAnswer,
  type CommitRows,
  commitRows,
  SESSION_COLUMNS,
  type SessionCommit,
} from '../sql/sql-commit-rows.js';
import type { SqlDriver, SqlParam, SqlValue } from '../sql/sql-driver.js';
import { writeSession } from '../sql/sql-session-writes.js';

/**
 * A statement's parameters, each named by the placeholder `add` answers. An array is one
 * parameter (`$n::type[]`), so the statement's text is the same however many rows a
 * commit writes: it depends only on which tables the commit writes, and PostgreSQL
 * keeps it prepared (parsed and planned) on each connection.
 */
class Params {
  readonly values: SqlParam[] = [];

  /** `$n::type`, standing for `value`. */
  add(value: SqlValue, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }

  /** `$n::type[]`, standing for `values`. */
  addArray(values: SqlValue[], type: string): string {
    this.values.push(values);
    return `$${this.values.length}::${type}[]`;
  }
}

/** Rows written into one table: a data-modifying CTE over `unnest` of its columns. */
interface ChildWrite {
  name: string;
  /** `INSERT INTO table (columns)`. */
  into: string;
  /**
   * The select list, over the unnested rows `x` (and `n`, their ordinal) and the session
   * row `s`; made only for a write that has rows, so every parameter added is used.
   */
  select: () => string;
  /** The unnested columns: name, one value per row, PostgreSQL type. */
  columns: [string, SqlValue[], string][];
  where?: string;
  tail?: string;
}

/**
 * `name AS (INSERT … SELECT … FROM s, unnest(…))`: reading `s` (the session row's
 * compare-and-set) makes it write nothing when `s` wrote nothing, and evaluates `s`
 * before it writes. The rows go in their order (`n`), so commits lock them in one order.
 */
function childWrite(write: ChildWrite, p: Params): string {
  const arrays = write.columns.map(([, values, type]) => p.addArray(values, type));
  const names = write.columns.map(([name]) => name);
  return `${write.name} AS (${write.into}
    SELECT ${write.select()} FROM s, unnest(${arrays.join(', ')}) WITH ORDINALITY AS x (${names.join(', ')}, n)
    ${write.where ? `WHERE ${write.where}` : ''} ORDER BY x.n ${write.tail ?? ''})`;
}

/** The PostgreSQL type of each of the session row's columns a commit sets. */
const SESSION_TYPES: Record<(typeof SESSION_COLUMNS)[number], string> = {
  meta: 'text',
  commit_ids: 'text',
  pause_id: 'text',
  invocation_id: 'text',
  status: 'text',
  paused_until: 'bigint',
  sla_due_at: 'bigint',
  lease_until: 'bigint',
  updated_at: 'bigint',
};

/** The session row's compare-and-set (or insert, when new), answering the audit and event bases. */
function sessionWrite(commit: SessionCommit, rows: CommitRows, sid: string, p: Params): string {
  const { meta } = commit.writes;
  const values = SESSION_COLUMNS.map((column, i) =>
    p.add(rows.session[i] ?? null, SESSION_TYPES[column]),
  );
  const audits = p.add(rows.audit.length, 'bigint');
  const events = p.add(rows.events.length, 'bigint');
  const keep = p.add(rows.keepUntil, 'bigint');
  const living = p.add(rows.living, 'bigint');
  if (commit.version === 'new') {
    return `s AS (INSERT INTO hp_sessions (${SESSION_COLUMNS.join(', ')}, session_id, app, user_id,
        version, audit_count, event_count, keep_until, expires_at)
      VALUES (${values.join(', ')}, ${sid}, ${p.add(meta.app, 'text')}, ${p.add(meta.userId, 'text')},
        1, ${audits}, ${events}, ${keep}, ${living})
      ON CONFLICT (session_id) DO NOTHING
      RETURNING 0::bigint AS audit_base, 0::bigint AS event_base)`;
  }
  const set = SESSION_COLUMNS.map((column, i) => `${column} = ${values[i]}`);
  // keep_until and expires_at read the row's keep_until as it was.
  return `s AS (UPDATE hp_sessions SET version = version + 1, ${set.join(', ')},
      audit_count = audit_count + ${audits}, event_count = event_count + ${events},
      keep_until = GREATEST(keep_until, ${keep}), expires_at = GREATEST(keep_until, ${living})
    WHERE session_id = ${sid} AND version = ${p.add(commit.version, 'bigint')}
      AND expires_at > ${p.add(commit.now, 'bigint')}
    RETURNING audit_count - ${audits} AS audit_base, event_count - ${events} AS event_base)`;
}

/**
 * The commit's writes below the session row, each a CTE of its own table that touches
 * no row another touches (PostgreSQL runs them on one snapshot, in no set order).
 */
function childWrites(commit: SessionCommit, rows: CommitRows, sid: string, p: Params): string[] {
  const { app, userId } = commit.writes.meta;
  const writes: ChildWrite[] = [];
  const pick = <T>(list: T[], at: (row: T) => SqlValue) => list.map(at);
  writes.push({
    name: 'pauses',
    into: 'INSERT INTO hp_pauses (session_id, pause_id, record)',
    select: () => `${sid}, x.id, x.record`,
    columns: [
      ['id', pick(rows.pauses, (r) => r[0]), 'text'],
      ['record', pick(rows.pauses, (r) => r[1]), 'text'],
    ],
    tail: 'ON CONFLICT (session_id, pause_id) DO UPDATE SET record = excluded.record',
  });
  writes.push({
    name: 'approvals',
    into: 'INSERT INTO hp_approvals (approval_id, session_id)',
    select: () => `x.id, ${sid}`,
    columns: [['id', rows.approvals, 'text']],
    tail: 'ON CONFLICT (approval_id) DO NOTHING',
  });
  writes.push({
    name: 'runs',
    into: 'INSERT INTO hp_runs (invocation_id, session_id, record)',
    select: () => `x.id, ${sid}, x.record`,
    columns: [
      ['id', pick(rows.runs, (r) => r[0]), 'text'],
      ['record', pick(rows.runs, (r) => r[1]), 'text'],
    ],
    tail: 'ON CONFLICT (invocation_id) DO UPDATE SET record = excluded.record',
  });
  const audiences = rows.audiences ?? [];
  writes.push({
    name: 'heard',
    into: 'INSERT INTO hp_paused_for (audience, paused_until, session_id)',
    select: () => `x.audience, x.until, ${sid}`,
    columns: [
      ['audience', pick(audiences, (r) => r[0]), 'text'],
      ['until', pick(audiences, (r) => r[1]), 'bigint'],
    ],
    tail: 'ON CONFLICT DO NOTHING',
  });
  writes.push({
    name: 'audit',
    into: 'INSERT INTO hp_audit (session_id, seq, line)',
    select: () => `${sid}, s.audit_base + x.n - 1, x.line`,
    columns: [['line', rows.audit, 'text']],
  });
  // As on SQLite: an event stored before keeps its seq (and its place), its body replaced.
  writes.push({
    name: 'events',
    into: 'INSERT INTO hp_events (session_id, seq, event_id, event)',
    select: () => `${sid}, s.event_base + x.n - 1, x.id, x.event`,
    columns: [
      ['id', pick(rows.events, (r) => r[0]), 'text'],
      ['event', pick(rows.events, (r) => r[1]), 'text'],
    ],
    tail: 'ON CONFLICT (session_id, event_id) DO UPDATE SET event = excluded.event',
  });
  const state = (entries: [string, string][]): ChildWrite['columns'] => [
    ['key', pick(entries, (r) => r[0]), 'text'],
    ['value', pick(entries, (r) => r[1]), 'text'],
  ];
  writes.push({
    name: 'session_state',
    into: 'INSERT INTO hp_session_state (session_id, key, value)',
    select: () => `${sid}, x.key, x.value`,
    columns: state(rows.sessionState),
    tail: 'ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value',
  });
  writes.push({
    name: 'app_state',
    into: 'INSERT INTO hp_app_state (app, key, value)',
    select: () => `${p.add(app, 'text')}, x.key, x.value`,
    columns: state(rows.appState),
    tail: 'ON CONFLICT (app, key) DO UPDATE SET value = excluded.value',
  });
  // A user's state outlives this session while another of the user's lives: the purge
  // keeps it for them (so no commit carries it along).
  writes.push({
    name: 'user_state',
    into: 'INSERT INTO hp_user_state (app, user_id, key, value, expires_at)',
    select: () =>
      `${p.add(app, 'text')}, ${p.add(userId, 'text')}, x.key, x.value, ${p.add(rows.living, 'bigint')}`,
    columns: state(rows.userState),
    tail: `ON CONFLICT (app, user_id, key) DO UPDATE SET value = excluded.value,
      expires_at = GREATEST(hp_user_state.expires_at, excluded.expires_at)`,
  });
  // Never below zero: a count taken down that is not there stays away (the transaction
  // path would write it as 0, which counts the same).
  writes.push({
    name: 'waiting',
    into: 'INSERT INTO hp_waiting (app, tool, count)',
    select: () => 'x.app, x.tool, x.change',
    columns: [
      ['app', pick(rows.waiting, (r) => r[0]), 'text'],
      ['tool', pick(rows.waiting, (r) => r[1]), 'text'],
      ['change', pick(rows.waiting, (r) => r[2]), 'bigint'],
    ],
    where:
      'x.change > 0 OR EXISTS (SELECT 1 FROM hp_waiting w WHERE w.app = x.app AND w.tool = x.tool)',
    tail: 'ON CONFLICT (app, tool) DO UPDATE SET count = GREATEST(hp_waiting.count + excluded.count, 0)',
  });
  const deliveries = (at: number) => pick(rows.deliveries, (r) => r[at] ?? null);
  writes.push({
    name: 'deliveries',
    into: 'INSERT INTO hp_deliveries (delivery_id, record, status, due_at, created_at, expires_at)',
    select: () => 'x.id, x.record, x.status, x.due, x.created, x.expires',
    columns: [
      ['id', deliveries(0), 'text'],
      ['record', deliveries(1), 'text'],
      ['status', deliveries(2), 'text'],
      ['due', deliveries(3), 'bigint'],
      ['created', deliveries(4), 'bigint'],
      ['expires', deliveries(5), 'bigint'],
    ],
    tail: 'ON CONFLICT (delivery_id) DO NOTHING',
  });
  const ctes = writes
    .filter((write) => (write.columns[0]?.[1].length ?? 0) > 0)
    .map((write) => childWrite(write, p));
  if (rows.audiences) {
    // Who may no longer decide: every row of the session but the ones kept, which
    // `heard` leaves as they are (so the two never touch one row).
    const keep = audiences.map(([audience, until]) => `${audience}\u001f${until}`);
    ctes.push(`unheard AS (DELETE FROM hp_paused_for f
      WHERE f.session_id = ${sid} AND EXISTS (SELECT 1 FROM s)
        AND NOT (f.audience || chr(31) || f.paused_until::text = ANY (${p.addArray(keep, 'text')})))`);
  }
  return ctes;
}

/**
 * The whole commit as one statement. Its one row: `stored`, 1 or 0 when nothing was
 * written; `listened` and `inbox_listened`, whether anyone listens to the session and to
 * the inbox (their rows in hp_listened), 1 or 0.
 */
export function commitStatement(commit: SessionCommit): { sql: string; params: SqlParam[] } {
  const rows = commitRows(commit);
  const p = new Params();
  const sid = p.add(commit.sessionId, 'text');
  const ctes = [sessionWrite(commit, rows, sid, p), ...childWrites(commit, rows, sid, p)];
  const now = p.add(commit.now, 'bigint');
  const listened = (channel: string) =>
    `(SELECT COUNT(*) FROM hp_listened WHERE channel = ${channel} AND until_at > ${now})`;
  return {
    sql: `WITH ${ctes.join(',\n')}
      SELECT (SELECT COUNT(*) FROM s) AS stored, ${listened(sid)} AS listened,
        ${listened(p.add(INBOX_CHANNEL, 'text'))} AS inbox_listened`,
    params: p.values,
  };
}

/**
 * A commit of a session on PostgreSQL in one round trip: one statement, a transaction of
 * its own, whose first CTE is the compare-and-set on the session row. A new session
 * whose id an expired one still holds takes the transaction path (the old one dropped
 * first, its waiting counts moved back).
 */
export async function writeSessionInOneStatement(
  db: SqlDriver,
  commit: SessionCommit,
): Promise<CommitAnswer> {
  const { sql, params } = commitStatement(commit);
  const inTransaction = async () => ({
    stored: await db.transaction((tx) => writeSession(tx, commit)),
  });
  const [row] = (await db.write(sql, params, { prepared: true })).rows;
  const answer = {
    stored: Number(row?.stored) === 1,
    listened: Number(row?.listened) === 1,
    inboxListened: Number(row?.inbox_listened) === 1,
  };
  if (answer.stored || commit.version !== 'new') return answer;
  const { rows: expired } = await db.query(
    'SELECT 1 FROM hp_sessions WHERE session_id = $1 AND expires_at <= $2',
    [commit.sessionId, commit.now],
  );
  return expired.length > 0 ? inTransaction() : answer;
}
