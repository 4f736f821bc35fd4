import type { Event } from '@google/adk';
import { pauseAudiences } from '../../core/approvers.js';
import { nextSlaAt } from '../../core/sla.js';
import type { Pause } from '../../core/types.js';
import { decodeRecord, encodeRecord } from '../record-codec.js';
import { splitState } from '../split-state.js';
import type { SessionSnapshot, SessionWrites } from '../store.js';
import { waitingChanges, waitingOf } from '../waiting-counts.js';
import type { SqlQueries, SqlValue } from './sql-driver.js';
import { deliveryRow } from './sql-outbox.js';
import { insertRows, lastByKey, placeholders } from './sql-rows.js';

/** Between an app's name and a tool's in a waiting key (see waitingKey). */
const SEPARATOR = '\u001f';

/** What one commit of a session writes besides `writes`: when, for how long, at which version. */
export interface SessionCommit {
  sessionId: string;
  /** The session as read at `version` (undefined: a new session). */
  before?: SessionSnapshot;
  /** The version the session must still be at; `new`: it is created. */
  version: number | 'new';
  writes: SessionWrites;
  commitIds: string[];
  now: number;
  ttlMs: number;
  /** How long the outbox keeps a delivery. */
  deliveryRetentionSeconds: number;
}

/** The session's latest pause once `writes` are committed over `before`. */
function latestPause(before: SessionSnapshot | undefined, writes: SessionWrites) {
  const pauseId = writes.meta.pauseId;
  if (pauseId === undefined) return undefined;
  const written = writes.pauses?.filter((pause) => pause.pauseId === pauseId).at(-1);
  return written ?? (before?.pause?.pauseId === pauseId ? before.pause : undefined);
}

/** The pending pause a session waits on, if it does. */
function waitingPause(snapshot: { meta: SessionWrites['meta']; pause?: Pause } | undefined) {
  const pause = snapshot?.pause;
  return snapshot?.meta.status === 'paused' && pause?.status === 'pending' ? pause : undefined;
}

/** The row's index columns: each true of the session as `writes` leave it. */
function indexColumns(pending: Pause | undefined, writes: SessionWrites) {
  const { meta } = writes;
  return {
    pausedUntil: pending ? pending.expiresAt : null,
    slaDueAt: pending ? (nextSlaAt(pending) ?? null) : null,
    leaseUntil: meta.status === 'running' && meta.lease ? meta.lease.until : null,
  };
}

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
 * Writes one commit of a session in `tx` (the caller's transaction): the session row as
 * a compare-and-set on its version (or inserted, when new), with the index columns and
 * rows the commit makes true, its pauses, approvals, runs, audit lines, events, state,
 * waiting counts and deliveries. False, having written nothing, when the session moved
 * on, aged out, or (new) exists.
 */
export async function writeSession(tx: SqlQueries, commit: SessionCommit): Promise<boolean> {
  const { sessionId, before, writes, now, ttlMs } = commit;
  const { meta } = writes;
  const append = writes.append ?? { events: [], state: {} };
  const events = lastByKey(append.events, (event) => event.id);
  const pending = waitingPause({ meta, pause: latestPause(before, writes) });
  const { pausedUntil, slaDueAt, leaseUntil } = indexColumns(pending, writes);
  const living = Math.max(now + ttlMs, writes.pauseRetainUntil ?? 0);
  const shared: SqlValue[] = [
    encodeRecord('meta', meta),
    commit.commitIds.join(' '),
    meta.pauseId ?? null,
    meta.invocationId ?? null,
    meta.status,
    pausedUntil,
    slaDueAt,
    leaseUntil,
    meta.updatedAt,
  ];
  let bases: { audit: number; event: number } | undefined;
  if (commit.version === 'new') {
    const { rows: expired } = await tx.query(
      'SELECT session_id FROM hp_sessions WHERE session_id = $1 AND expires_at <= $2',
      [sessionId, now],
    );
    if (expired.length > 0) await dropSessions(tx, [sessionId], now);
    const keep = writes.pauseRetainUntil ?? 0;
    const { rows } = await tx.query(
      `INSERT INTO hp_sessions (meta, commit_ids, pause_id, invocation_id, status, paused_until,
         sla_due_at, lease_until, updated_at, session_id, app, user_id, version, audit_count,
         event_count, keep_until, expires_at)
       VALUES (${placeholders(17)})
       ON CONFLICT (session_id) DO NOTHING RETURNING version`,
      [
        ...shared,
        sessionId,
        meta.app,
        meta.userId,
        1,
        writes.audit.length,
        events.length,
        keep,
        living,
      ],
    );
    if (rows.length === 0) return false;
    bases = { audit: 0, event: 0 };
  } else {
    const { rows } = await tx.query(
      `UPDATE hp_sessions SET version = version + 1, meta = $1, commit_ids = $2, pause_id = $3,
         invocation_id = $4, status = $5, paused_until = $6, sla_due_at = $7, lease_until = $8,
         updated_at = $9,
         audit_count = audit_count + $10, event_count = event_count + $11,
         keep_until = CASE WHEN keep_until > $12 THEN keep_until ELSE $12 END,
         expires_at = CASE WHEN keep_until > $13 THEN keep_until ELSE $13 END
       WHERE session_id = $14 AND version = $15 AND expires_at > $16
       RETURNING audit_count - $10 AS audit_base, event_count - $11 AS event_base`,
      [
        ...shared,
        writes.audit.length,
        events.length,
        writes.pauseRetainUntil ?? 0,
        living,
        sessionId,
        commit.version,
        now,
      ],
    );
    const row = rows[0];
    if (!row) return false;
    bases = { audit: Number(row.audit_base), event: Number(row.event_base) };
  }
  await writeChildren(tx, commit, events, pending, bases, living);
  return true;
}

/** Everything of a commit below the session row, once the row holds it. */
async function writeChildren(
  tx: SqlQueries,
  commit: SessionCommit,
  events: Event[],
  pending: Pause | undefined,
  bases: { audit: number; event: number },
  living: number,
): Promise<void> {
  const { sessionId, before, writes } = commit;
  const { meta } = writes;
  const pauses = lastByKey(writes.pauses ?? [], (pause) => pause.pauseId);
  if (pauses.length > 0) {
    await insertRows(
      tx,
      'INSERT INTO hp_pauses (session_id, pause_id, record)',
      3,
      pauses.map((pause) => [sessionId, pause.pauseId, encodeRecord('pause', pause)]),
      'ON CONFLICT (session_id, pause_id) DO UPDATE SET record = excluded.record',
    );
    const approvals = [...new Set(pauses.flatMap((p) => p.approvals.map((a) => a.approvalId)))];
    await insertRows(
      tx,
      'INSERT INTO hp_approvals (approval_id, session_id)',
      2,
      approvals.sort().map((approvalId) => [approvalId, sessionId]),
      'ON CONFLICT (approval_id) DO NOTHING',
    );
  }
  const runs = lastByKey(writes.runs ?? [], (run) => run.invocationId);
  if (runs.length > 0) {
    await insertRows(
      tx,
      'INSERT INTO hp_runs (invocation_id, session_id, record)',
      3,
      runs.map((run) => [run.invocationId, sessionId, encodeRecord('run', run)]),
      'ON CONFLICT (invocation_id) DO UPDATE SET record = excluded.record',
    );
  }
  await writeAudiences(tx, sessionId, waitingPause(before), pending);
  if (writes.audit.length > 0) {
    await insertRows(
      tx,
      'INSERT INTO hp_audit (session_id, seq, line)',
      3,
      writes.audit.map((line, i) => [sessionId, bases.audit + i, encodeRecord('audit', line)]),
    );
  }
  if (events.length > 0) {
    // Every event gets a sequence number past the session's last; one stored before keeps
    // its own (and its place), its body replaced.
    await insertRows(
      tx,
      'INSERT INTO hp_events (session_id, seq, event_id, event)',
      4,
      events.map((event, i) => [
        sessionId,
        bases.event + i,
        event.id,
        encodeRecord('event', event),
      ]),
      'ON CONFLICT (session_id, event_id) DO UPDATE SET event = excluded.event',
    );
  }
  const state = splitState(writes.append?.state ?? {});
  const sorted = (record: Record<string, string>) =>
    Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (Object.keys(state.session).length > 0) {
    await insertRows(
      tx,
      'INSERT INTO hp_session_state (session_id, key, value)',
      3,
      sorted(state.session).map(([key, value]) => [sessionId, key, value]),
      'ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value',
    );
  }
  if (Object.keys(state.app).length > 0) {
    await insertRows(
      tx,
      'INSERT INTO hp_app_state (app, key, value)',
      3,
      sorted(state.app).map(([key, value]) => [meta.app, key, value]),
      'ON CONFLICT (app, key) DO UPDATE SET value = excluded.value',
    );
  }
  if (Object.keys(state.user).length > 0) {
    await insertRows(
      tx,
      'INSERT INTO hp_user_state (app, user_id, key, value, expires_at)',
      5,
      sorted(state.user).map(([key, value]) => [meta.app, meta.userId, key, value, living]),
      `ON CONFLICT (app, user_id, key) DO UPDATE SET value = excluded.value,
         expires_at = CASE WHEN hp_user_state.expires_at > excluded.expires_at
           THEN hp_user_state.expires_at ELSE excluded.expires_at END`,
    );
  }
  // The user's state lives as long as any session of the user: each commit carries it
  // along to the session's new lifetime (it is never shortened).
  await tx.query(
    'UPDATE hp_user_state SET expires_at = $3 WHERE app = $1 AND user_id = $2 AND expires_at < $3',
    [meta.app, meta.userId, living],
  );
  await moveWaiting(tx, waitingChanges(before, writes));
  const deliveries = lastByKey(writes.deliveries ?? [], (d) => d.deliveryId).sort((a, b) =>
    a.deliveryId < b.deliveryId ? -1 : a.deliveryId > b.deliveryId ? 1 : 0,
  );
  if (deliveries.length > 0) {
    await insertRows(
      tx,
      'INSERT INTO hp_deliveries (delivery_id, record, status, due_at, created_at, expires_at)',
      6,
      deliveries.map((record) => deliveryRow(record, commit.deliveryRetentionSeconds)),
      'ON CONFLICT (delivery_id) DO NOTHING',
    );
  }
}

/**
 * Keeps the session's rows in hp_paused_for true: who may decide the pause it waits on,
 * scored by the pause's expiry. Left alone when the commit changes neither.
 */
async function writeAudiences(
  tx: SqlQueries,
  sessionId: string,
  was: Pause | undefined,
  now: Pause | undefined,
): Promise<void> {
  const audiences = now ? pauseAudiences(now).sort() : [];
  if (was && now && was.expiresAt === now.expiresAt) {
    const before = pauseAudiences(was).sort();
    if (before.join('\n') === audiences.join('\n')) return;
  }
  if (was) await tx.query('DELETE FROM hp_paused_for WHERE session_id = $1', [sessionId]);
  if (now && audiences.length > 0) {
    await insertRows(
      tx,
      'INSERT INTO hp_paused_for (audience, paused_until, session_id)',
      3,
      audiences.map((audience) => [audience, now.expiresAt, sessionId]),
      'ON CONFLICT DO NOTHING',
    );
  }
}
