import { createSession as adkSession, mergeStates, type Session } from '@google/adk';
import { HoldpointError } from '../../core/errors.js';
import { decodeRecord } from '../record-codec.js';
import type { Page, PageCursor, SessionSnapshot } from '../store.js';
import type { VersionedSnapshot } from '../transactional-store.js';
import type { SqlQueries, SqlRow, SqlValue } from './sql-driver.js';
import { placeholders } from './sql-rows.js';

/** A session's row with its latest pause and run: one snapshot, read in one query. */
const SNAPSHOT = `SELECT s.session_id, s.version, s.meta, s.commit_ids,
    p.record AS pause, r.record AS run`;
const WITH_LATEST = `LEFT JOIN hp_pauses p ON p.session_id = s.session_id AND p.pause_id = s.pause_id
  LEFT JOIN hp_runs r ON r.invocation_id = s.invocation_id AND r.session_id = s.session_id`;

/** Whether anyone listens to session `$1` at `$2` (its row in hp_listened), as 1 or 0. */
export const LISTENED = `(SELECT COUNT(*) FROM hp_listened l
  WHERE l.channel = $1 AND l.until_at > $2)`;

/** A snapshot, and whether anyone listened to its session as it was read. */
export type ListenedSnapshot = VersionedSnapshot & { listened: boolean };

/** A snapshot row as the store's snapshot; RECORD_UNREADABLE when a record is not this release's. */
export function snapshotOf(row: SqlRow): VersionedSnapshot {
  const sessionId = String(row.session_id);
  const commits = String(row.commit_ids ?? '');
  return {
    version: Number(row.version),
    commitIds: commits ? commits.split(' ') : undefined,
    snapshot: {
      meta: decodeRecord('meta', String(row.meta), sessionId),
      pause: row.pause === null ? undefined : decodeRecord('pause', String(row.pause), sessionId),
      run: row.run === null ? undefined : decodeRecord('run', String(row.run), sessionId),
    },
  };
}

/** The snapshots of `rows` that can be read: a list never fails on one unreadable session. */
function readable(rows: SqlRow[]): SessionSnapshot[] {
  return rows.flatMap((row) => {
    try {
      return [snapshotOf(row).snapshot];
    } catch {
      return [];
    }
  });
}

function parseState(rows: SqlRow[], sessionId: string): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const row of rows) {
    try {
      state[String(row.key)] = JSON.parse(String(row.value));
    } catch {
      throw new HoldpointError(
        'RECORD_UNREADABLE',
        `The stored state key ${String(row.key)} of session ${sessionId} is not JSON.`,
        { session_id: sessionId, record: 'state' },
      );
    }
  }
  return state;
}

/** One index column's page: rows where `column` passes `bound`, ordered by it and the session id. */
interface IndexPage {
  /** The index column (`s.lease_until`…) and the range: `column bound boundValue`. */
  column: string;
  bound: '<=' | '>';
  boundValue: number;
  descending?: boolean;
  /** What a page's score adds to the column (the cursor's score is taken back by as much). */
  scoreShift?: number;
  after?: PageCursor;
  limit: number;
  now: number;
  /** More conditions on `s`, and their values. */
  where?: string;
  whereValues?: SqlValue[];
}

/**
 * The reads of sessions, each one query (a snapshot, a page of an index column, a
 * lookup) on the rows the commits keep: a session whose lifetime ended (`expires_at`
 * passed) is gone for them, as a Redis key past its TTL, until the purge removes it.
 */
export class SqlSessionReads {
  constructor(private readonly db: SqlQueries) {}

  /**
   * The session's snapshot, and whether anyone listens to it now (its hp_listened row),
   * in one query.
   */
  async snapshot(sessionId: string, now: number): Promise<ListenedSnapshot | undefined> {
    const { rows } = await this.db.query(
      `${SNAPSHOT}, ${LISTENED} AS listened FROM hp_sessions s ${WITH_LATEST}
        WHERE s.session_id = $1 AND s.expires_at > $2`,
      [sessionId, now],
      { prepared: true },
    );
    const [row] = rows;
    return row ? { ...snapshotOf(row), listened: Number(row.listened) === 1 } : undefined;
  }

  /** A page of sessions by an index column, as snapshots, and the cursor after it when full. */
  async page(page: IndexPage): Promise<Page<SessionSnapshot>> {
    const { column, limit } = page;
    const shift = page.scoreShift ?? 0;
    const order = page.descending ? 'DESC' : 'ASC';
    const values: SqlValue[] = [page.boundValue, page.now, limit, ...(page.whereValues ?? [])];
    let where = `${column} ${page.bound} $1 AND s.expires_at > $2`;
    if (page.where) where += ` AND ${page.where}`;
    if (page.after) {
      values.push(page.after.score - shift, page.after.member);
      const n = values.length;
      where += ` AND (${column}, s.session_id) ${page.descending ? '<' : '>'} ($${n - 1}, $${n})`;
    }
    const { rows } = await this.db.query(
      `${SNAPSHOT}, ${column} AS score FROM hp_sessions s ${WITH_LATEST}
        WHERE ${where} ORDER BY ${column} ${order}, s.session_id ${order} LIMIT $3`,
      values,
    );
    return pageOf(rows, rows.length === limit, shift);
  }

  /**
   * A page of the sessions paused for any of `audiences`, earliest expiry first, each
   * once, from hp_paused_for (the rows the commits keep).
   */
  async pausedFor(
    audiences: string[],
    { limit, after }: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    if (audiences.length === 0) return { items: [] };
    const values: SqlValue[] = [now, limit, ...audiences];
    let cursor = '';
    if (after) {
      values.push(after.score, after.member);
      cursor = `AND (f.paused_until, f.session_id) > ($${values.length - 1}, $${values.length})`;
    }
    const { rows } = await this.db.query(
      `${SNAPSHOT}, f.paused_until AS score FROM (
         SELECT DISTINCT f.paused_until, f.session_id FROM hp_paused_for f
          WHERE f.audience IN (${placeholders(audiences.length, 3)})
            AND f.paused_until > $1 ${cursor}
          ORDER BY f.paused_until, f.session_id LIMIT $2) f
       JOIN hp_sessions s ON s.session_id = f.session_id ${WITH_LATEST}
       WHERE s.expires_at > $1
       ORDER BY f.paused_until, f.session_id`,
      values,
    );
    return pageOf(rows, rows.length === limit);
  }

  /** Up to `limit` session ids by an index column due by `now`, earliest first. */
  async due(column: 'paused_until' | 'sla_due_at', now: number, limit: number) {
    const { rows } = await this.db.query(
      `SELECT session_id FROM hp_sessions WHERE ${column} <= $1 AND expires_at > $3
        ORDER BY ${column}, session_id LIMIT $2`,
      [now, limit, Date.now()],
    );
    return rows.map((row) => String(row.session_id));
  }

  /**
   * The ADK session: its events in order and its state merged with the app's and user's,
   * in one query (one snapshot, one round trip). The user's state is there as long as
   * any session of the user lives (this one does).
   */
  async session(
    sessionId: string,
    app: string,
    userId: string,
    now: number,
  ): Promise<Session | undefined> {
    const { rows } = await this.db.query(
      `SELECT 0 AS part, 0 AS seq, meta AS a, NULL AS b FROM hp_sessions
        WHERE session_id = $1 AND app = $2 AND user_id = $3 AND expires_at > $4
       UNION ALL SELECT 1, seq, event, NULL FROM hp_events WHERE session_id = $1
       UNION ALL SELECT 2, 0, key, value FROM hp_session_state WHERE session_id = $1
       UNION ALL SELECT 3, 0, key, value FROM hp_app_state WHERE app = $2
       UNION ALL SELECT 4, 0, key, value FROM hp_user_state WHERE app = $2 AND user_id = $3
       ORDER BY part, seq`,
      [sessionId, app, userId, now],
      { prepared: true },
    );
    const [row] = rows;
    if (!row || Number(row.part) !== 0) return undefined;
    const part = (n: number) => rows.filter((r) => Number(r.part) === n);
    const state = (n: number) =>
      parseState(
        part(n).map((r) => ({ key: r.a ?? null, value: r.b ?? null })),
        sessionId,
      );
    const stored = decodeRecord('meta', String(row.a), sessionId);
    const list = part(1).map((e) => decodeRecord('event', String(e.a), sessionId));
    return adkSession({
      id: sessionId,
      appName: app,
      userId,
      state: mergeStates(state(3), state(4), state(2)),
      events: list,
      lastUpdateTime: list.at(-1)?.timestamp ?? stored.createdAt,
    });
  }
}

/** The page of `rows` (each with its `score`, shifted), and its cursor when it came back full. */
function pageOf(rows: SqlRow[], full: boolean, shift = 0): Page<SessionSnapshot> {
  const last = rows.at(-1);
  const next = { score: Number(last?.score) + shift, member: String(last?.session_id) };
  return { items: readable(rows), next: full && last ? next : undefined };
}
