import { decodeRecord } from '../src/store/record-codec.js';
import type { SqlDriver, SqlQueries, SqlValue } from '../src/store/sql/sql-driver.js';
import { moveWaiting } from '../src/store/sql/sql-session-writes.js';
import { waitingOf } from '../src/store/waiting-counts.js';

/** The ids a paused session's rows carry, read from the template session's rows. */
interface TemplateIds {
  sessionId: string;
  userId: string;
  pauseId: string;
  invocationId: string;
  approvalIds: string[];
}

/** How many copies, in which batches, for whom. */
export interface SqlSeedPlan {
  count: number;
  /** Sessions copied per transaction. */
  batch: number;
  /** Copies are owned by `<ownerPrefix>-0`, `-1`, …, this many each. */
  sessionsPerOwner: number;
  ownerPrefix: string;
}

/** `:name` tokens as `$1`, `$2`… in order of first use, with the values to send. */
function bind(sql: string, named: Record<string, SqlValue>): [string, SqlValue[]] {
  const order: string[] = [];
  const text = sql.replace(/:(\w+)/g, (_, name: string) => {
    if (!(name in named)) throw new Error(`no value for :${name}`);
    if (!order.includes(name)) order.push(name);
    return `$${order.indexOf(name) + 1}`;
  });
  return [text, order.map((name) => named[name] ?? null)];
}

/** The copy's index (0-based, over every batch) and its ids, as SQL on the row `n.i`. */
const INDEX = '(CAST(:base AS BIGINT) + n.i - 1)';
const KEY = `CAST(${INDEX} AS TEXT)`;
const SESSION = `'seed-s-' || ${KEY}`;
const PAUSE = `'seed-p-' || ${KEY}`;
const INVOCATION = `'seed-i-' || ${KEY}`;
const approvalId = (j: number) => `'seed-a-' || ${KEY} || '-${j}'`;

/** 1 … :batch, the copies of one transaction. */
const NUMBERS = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :batch)';

/** Reads the ids of `sessionId`'s rows; throws unless it is one paused run with one pause. */
async function templateIds(db: SqlQueries, sessionId: string): Promise<TemplateIds> {
  const { rows } = await db.query(
    `SELECT s.user_id, s.pause_id, s.invocation_id, s.status,
        (SELECT COUNT(*) FROM hp_runs r WHERE r.session_id = s.session_id) AS runs,
        (SELECT COUNT(*) FROM hp_pauses p WHERE p.session_id = s.session_id) AS pauses
       FROM hp_sessions s WHERE s.session_id = $1`,
    [sessionId],
  );
  const [row] = rows;
  if (row?.status !== 'paused' || Number(row.runs) !== 1 || Number(row.pauses) !== 1) {
    throw new Error(`the template ${sessionId} is not one paused run with one pause`);
  }
  const approvals = await db.query(
    'SELECT approval_id FROM hp_approvals WHERE session_id = $1 ORDER BY approval_id',
    [sessionId],
  );
  return {
    sessionId,
    userId: String(row.user_id),
    pauseId: String(row.pause_id),
    invocationId: String(row.invocation_id),
    approvalIds: approvals.rows.map((approval) => String(approval.approval_id)),
  };
}

/**
 * The statements copying the template's rows `:batch` times with new ids: every id of
 * the template (session, pause, run, approvals, owner) is replaced in the ids and in the
 * JSON records, so each copy reads back as a session of its own.
 */
function copyStatements(ids: TemplateIds, plan: SqlSeedPlan): string[] {
  const owner = `CAST(:ownerPrefix AS TEXT) || '-' || CAST(${INDEX} / ${plan.sessionsPerOwner} AS TEXT)`;
  let renamed = 'COL';
  const swaps: [string, string][] = [
    [':tplSession', SESSION],
    [':tplPause', PAUSE],
    [':tplInvocation', INVOCATION],
    ...ids.approvalIds.map((_, j): [string, string] => [`:tplApproval${j}`, approvalId(j)]),
    [':tplUser', owner],
  ];
  for (const [from, to] of swaps) renamed = `REPLACE(${renamed}, ${from}, ${to})`;
  const r = (column: string) => renamed.replace('COL', column);
  const from = (table: string) => `FROM n CROSS JOIN ${table} t WHERE t.session_id = :tplSession`;
  return [
    `${NUMBERS} INSERT INTO hp_sessions (session_id, app, user_id, version, meta, commit_ids,
       pause_id, invocation_id, audit_count, event_count, status, paused_until, sla_due_at,
       lease_until, updated_at, keep_until, expires_at)
     SELECT ${SESSION}, t.app, ${owner}, t.version, ${r('t.meta')}, t.commit_ids, ${PAUSE},
       ${INVOCATION}, t.audit_count, t.event_count, t.status, t.paused_until, t.sla_due_at,
       t.lease_until, t.updated_at, t.keep_until, t.expires_at ${from('hp_sessions')}`,
    `${NUMBERS} INSERT INTO hp_pauses (session_id, pause_id, record)
     SELECT ${SESSION}, ${PAUSE}, ${r('t.record')} ${from('hp_pauses')}`,
    `${NUMBERS} INSERT INTO hp_runs (invocation_id, session_id, record)
     SELECT ${INVOCATION}, ${SESSION}, ${r('t.record')} ${from('hp_runs')}`,
    ...ids.approvalIds.map(
      (_, j) => `${NUMBERS} INSERT INTO hp_approvals (approval_id, session_id)
       SELECT ${approvalId(j)}, ${SESSION} FROM n`,
    ),
    `${NUMBERS} INSERT INTO hp_paused_for (audience, paused_until, session_id)
     SELECT ${r('t.audience')}, t.paused_until, ${SESSION} ${from('hp_paused_for')}`,
    `${NUMBERS} INSERT INTO hp_audit (session_id, seq, line)
     SELECT ${SESSION}, t.seq, ${r('t.line')} ${from('hp_audit')}`,
    `${NUMBERS} INSERT INTO hp_events (session_id, seq, event_id, event)
     SELECT ${SESSION}, t.seq, t.event_id, ${r('t.event')} ${from('hp_events')}`,
    `${NUMBERS} INSERT INTO hp_session_state (session_id, key, value)
     SELECT ${SESSION}, t.key, ${r('t.value')} ${from('hp_session_state')}`,
  ];
}

/**
 * Copies the paused session `templateSessionId` `plan.count` times with SQL, `plan.batch`
 * copies per transaction (INSERT … SELECT over a numbers CTE, one statement per table),
 * moving the waiting counts by as much as the copies wait for, as their commits would.
 * Each copy keeps the template's times, so it expires with it.
 */
export async function seedPausedSql(
  db: SqlDriver,
  templateSessionId: string,
  plan: SqlSeedPlan,
): Promise<void> {
  const ids = await templateIds(db, templateSessionId);
  const [pauseRow] = (
    await db.query('SELECT record FROM hp_pauses WHERE session_id = $1 AND pause_id = $2', [
      ids.sessionId,
      ids.pauseId,
    ])
  ).rows;
  const waiting = waitingOf(decodeRecord('pause', String(pauseRow?.record), ids.sessionId));
  const statements = copyStatements(ids, plan);
  const values: Record<string, SqlValue> = {
    ownerPrefix: plan.ownerPrefix,
    tplSession: ids.sessionId,
    tplPause: ids.pauseId,
    tplInvocation: ids.invocationId,
    tplUser: ids.userId,
    ...Object.fromEntries(ids.approvalIds.map((id, j) => [`tplApproval${j}`, id])),
  };
  for (let base = 0; base < plan.count; base += plan.batch) {
    const batch = Math.min(plan.batch, plan.count - base);
    await db.transaction(async (tx) => {
      for (const statement of statements) {
        await tx.query(...bind(statement, { ...values, base, batch }));
      }
      const changes = new Map([...waiting].map(([key, count]) => [key, count * batch]));
      await moveWaiting(tx, changes);
    });
  }
}
