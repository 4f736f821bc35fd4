import type { SqlDialect, SqlQueries } from '../src/store/sql/sql-driver.js';
import type { SentStatement } from './counting-driver.js';

/** The tables that grow with paused sessions: a full scan of one is what must not happen. */
const GROWING = new Set([
  'hp_sessions',
  'hp_pauses',
  'hp_runs',
  'hp_approvals',
  'hp_paused_for',
  'hp_audit',
  'hp_events',
  'hp_session_state',
  'hp_deliveries',
]);

/** How the database runs one store call's statements. */
export interface PlanCheck {
  call: string;
  statements: number;
  /** Indexes the plans name (primary keys included). */
  indexes: string[];
  /** Tables that grow with paused sessions read whole (by the name or alias the plan gives). */
  fullScans: string[];
  /** The plans as the database printed them. */
  plans: string[];
}

/** The tables and aliases of growing tables in `sql`: `hp_sessions s` makes `s` one too. */
function growingNames(sql: string): Set<string> {
  const names = new Set<string>();
  for (const match of sql.matchAll(/\b(hp_\w+)(?:\s+(?:AS\s+)?(\w+))?/gi)) {
    const [, table, alias] = match;
    if (!table || !GROWING.has(table.toLowerCase())) continue;
    names.add(table.toLowerCase());
    if (alias && !/^(ON|WHERE|SET|JOIN|LEFT|INNER|ORDER|VALUES|USING|GROUP|LIMIT)$/i.test(alias)) {
      names.add(alias.toLowerCase());
    }
  }
  return names;
}

/**
 * SQLite's plan (EXPLAIN QUERY PLAN), one line per step. A subquery's rows read back
 * (`SCAN f` beside `CO-ROUTINE f`, outside it) are marked `SCAN SUBQUERY f`, so they
 * are not taken for a scan of the table the subquery reads under the same alias.
 */
async function sqlitePlan(db: SqlQueries, { sql, params }: SentStatement): Promise<string[]> {
  const { rows } = await db.query(`EXPLAIN QUERY PLAN ${sql}`, params);
  const subqueries = new Map<string, number>();
  for (const row of rows) {
    const subquery = /^(?:CO-ROUTINE|MATERIALIZE) (\w+)/.exec(String(row.detail));
    if (subquery?.[1]) subqueries.set(subquery[1], Number(row.id));
  }
  const inside = (row: (typeof rows)[number], id: number): boolean => {
    let parent = Number(row.parent);
    while (parent !== 0) {
      if (parent === id) return true;
      parent = Number(rows.find((r) => Number(r.id) === parent)?.parent ?? 0);
    }
    return false;
  };
  return rows.map((row) => {
    const detail = String(row.detail);
    const scan = /^SCAN (\w+)$/.exec(detail);
    const subquery = scan?.[1] ? subqueries.get(scan[1]) : undefined;
    return subquery !== undefined && !inside(row, subquery) ? `SCAN SUBQUERY ${scan?.[1]}` : detail;
  });
}

/** PostgreSQL's plan (EXPLAIN, the parameters bound), one line per node. */
async function postgresPlan(db: SqlQueries, { sql, params }: SentStatement): Promise<string[]> {
  const { rows } = await db.query(`EXPLAIN ${sql}`, params);
  return rows.map((row) => String(row['QUERY PLAN']).trim());
}

/** The indexes a plan line uses, and the growing table it reads whole, if it does. */
function readLine(dialect: SqlDialect, line: string, growing: Set<string>) {
  const indexes: string[] = [];
  let fullScan: string | undefined;
  if (dialect === 'sqlite') {
    const index = /USING (?:COVERING )?INDEX (\w+)|USING (INTEGER )?PRIMARY KEY/.exec(line);
    if (index) indexes.push(index[1] ?? 'rowid');
    const scan = /^SCAN (\w+)(.*)$/.exec(line);
    if (scan?.[1] && !/USING/.test(scan[2] ?? '') && growing.has(scan[1].toLowerCase())) {
      fullScan = scan[1];
    }
  } else {
    const index =
      /(?:Index Scan|Index Only Scan)(?: Backward)? using (\w+)|Bitmap Index Scan on (\w+)/.exec(
        line,
      );
    if (index) indexes.push(index[1] ?? index[2] ?? '');
    const scan = /Seq Scan on (\w+)/.exec(line);
    if (scan?.[1] && growing.has(scan[1].toLowerCase())) fullScan = scan[1];
  }
  return { indexes, fullScan };
}

/** Reads the plan of every statement `call` sent, and which indexes and full scans they hold. */
export async function checkPlans(
  db: SqlQueries,
  dialect: SqlDialect,
  call: string,
  sent: SentStatement[],
): Promise<PlanCheck> {
  const indexes = new Set<string>();
  const fullScans = new Set<string>();
  const plans: string[] = [];
  for (const statement of sent) {
    if (/^\s*(BEGIN|COMMIT|ROLLBACK)/i.test(statement.sql)) continue;
    const lines =
      dialect === 'sqlite' ? await sqlitePlan(db, statement) : await postgresPlan(db, statement);
    const growing = growingNames(statement.sql);
    for (const line of lines) {
      const read = readLine(dialect, line, growing);
      for (const index of read.indexes) indexes.add(index);
      if (read.fullScan) fullScans.add(read.fullScan);
    }
    plans.push(lines.join(' | '));
  }
  return {
    call,
    statements: sent.length,
    indexes: [...indexes].sort(),
    fullScans: [...fullScans].sort(),
    plans,
  };
}
