import { nextSlaAt } from '../../../session/sla.js';
import { decodeRecord } from '../../record-codec.js';
import { waitingCounts, waitingOf } from '../../waiting-counts.js';
import type { SqlDialect, SqlQueries } from '../sql-driver.js';

/**
 * One step of the schema: from `version - 1` to `version`, in one transaction with the
 * schema lock held (`SqlDriver.schemaTransaction`). Steps are never edited once
 * released; a change of the schema is a new step.
 */
export interface Migration {
  version: number;
  /** What the step does, for `holdpoint db migrate`'s output. */
  name: string;
  up(tx: SqlQueries, dialect: SqlDialect): Promise<void>;
}

/** Runs `statements` in order. */
async function runAll(tx: SqlQueries, statements: string[]): Promise<void> {
  for (const statement of statements) await tx.query(statement);
}

/**
 * Version 1: the store as it was before approvals reached people: sessions (meta,
 * the latest pause's and run's ids, the indexes a commit keeps as columns), pauses, runs, the approvals' and
 * runs' lookups, who may decide a pause, the audit chain, ADK events, shared state, the
 * effect ledger, idempotency records, rate windows, user memories and the sweep lock.
 * Times are epoch milliseconds; JSON is TEXT.
 */
const V1_SESSIONS = [
  `CREATE TABLE hp_sessions (
    session_id TEXT PRIMARY KEY,
    app TEXT NOT NULL,
    user_id TEXT NOT NULL,
    version BIGINT NOT NULL,
    meta TEXT NOT NULL,
    commit_ids TEXT NOT NULL DEFAULT '',
    pause_id TEXT,
    invocation_id TEXT,
    audit_count BIGINT NOT NULL DEFAULT 0,
    event_count BIGINT NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    paused_until BIGINT,
    lease_until BIGINT,
    updated_at BIGINT NOT NULL,
    keep_until BIGINT NOT NULL DEFAULT 0,
    expires_at BIGINT NOT NULL
  )`,
  'CREATE INDEX hp_sessions_paused ON hp_sessions (paused_until, session_id) WHERE paused_until IS NOT NULL',
  'CREATE INDEX hp_sessions_running ON hp_sessions (lease_until, session_id) WHERE lease_until IS NOT NULL',
  'CREATE INDEX hp_sessions_owner ON hp_sessions (user_id, updated_at, session_id)',
  'CREATE INDEX hp_sessions_expiry ON hp_sessions (expires_at)',
  `CREATE TABLE hp_pauses (
    session_id TEXT NOT NULL REFERENCES hp_sessions ON DELETE CASCADE,
    pause_id TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (session_id, pause_id)
  )`,
  `CREATE TABLE hp_runs (
    invocation_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES hp_sessions ON DELETE CASCADE,
    record TEXT NOT NULL
  )`,
  'CREATE INDEX hp_runs_session ON hp_runs (session_id)',
  `CREATE TABLE hp_approvals (
    approval_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES hp_sessions ON DELETE CASCADE
  )`,
  'CREATE INDEX hp_approvals_session ON hp_approvals (session_id)',
  `CREATE TABLE hp_paused_for (
    audience TEXT NOT NULL,
    paused_until BIGINT NOT NULL,
    session_id TEXT NOT NULL REFERENCES hp_sessions ON DELETE CASCADE,
    PRIMARY KEY (audience, paused_until, session_id)
  )`,
  'CREATE INDEX hp_paused_for_session ON hp_paused_for (session_id)',
  `CREATE TABLE hp_audit (
    session_id TEXT NOT NULL REFERENCES hp_sessions ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  )`,
  `CREATE TABLE hp_events (
    session_id TEXT NOT NULL REFERENCES hp_sessions ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    event_id TEXT NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, event_id)
  )`,
  `CREATE TABLE hp_session_state (
    session_id TEXT NOT NULL REFERENCES hp_sessions ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
  )`,
  `CREATE TABLE hp_app_state (
    app TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (app, key)
  )`,
  `CREATE TABLE hp_user_state (
    app TEXT NOT NULL,
    user_id TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (app, user_id, key)
  )`,
  'CREATE INDEX hp_user_state_expiry ON hp_user_state (expires_at)',
];

const V1_RECORDS = [
  `CREATE TABLE hp_effects (
    key TEXT PRIMARY KEY,
    lock_id TEXT,
    lock_until BIGINT,
    done INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    started INTEGER NOT NULL DEFAULT 0,
    expires_at BIGINT NOT NULL
  )`,
  'CREATE INDEX hp_effects_expiry ON hp_effects (expires_at)',
  `CREATE TABLE hp_requests (
    key TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    expires_at BIGINT NOT NULL
  )`,
  'CREATE INDEX hp_requests_expiry ON hp_requests (expires_at)',
  `CREATE TABLE hp_rate_windows (
    key TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    count BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (key, window_start)
  )`,
  'CREATE INDEX hp_rate_windows_expiry ON hp_rate_windows (expires_at)',
  `CREATE TABLE hp_memories (
    app TEXT NOT NULL,
    user_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    memories TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (app, user_id, source_id)
  )`,
  'CREATE INDEX hp_memories_expiry ON hp_memories (expires_at)',
  `CREATE TABLE hp_locks (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    until_at BIGINT NOT NULL
  )`,
  `CREATE TABLE hp_relay (
    id TEXT PRIMARY KEY,
    channel TEXT NOT NULL,
    message TEXT NOT NULL,
    expires_at BIGINT NOT NULL
  )`,
  'CREATE INDEX hp_relay_expiry ON hp_relay (expires_at)',
];

/**
 * Version 2: approvals that reach people: the outbox of deliveries (the due ones
 * indexed), out-of-office delegations, the waiting counts per app and tool, and the SLA
 * index as a column of the session; the counts and SLA entries of the pauses already
 * waiting are computed from them (`backfillV2`).
 */
const V2_STATEMENTS = [
  `CREATE TABLE hp_deliveries (
    delivery_id TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    status TEXT NOT NULL,
    due_at BIGINT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
  )`,
  'CREATE INDEX hp_deliveries_due ON hp_deliveries (due_at, delivery_id) WHERE due_at IS NOT NULL',
  'CREATE INDEX hp_deliveries_log ON hp_deliveries (created_at, delivery_id)',
  'CREATE INDEX hp_deliveries_status ON hp_deliveries (status, created_at, delivery_id)',
  'CREATE INDEX hp_deliveries_expiry ON hp_deliveries (expires_at)',
  `CREATE TABLE hp_delegations (
    user_id TEXT PRIMARY KEY,
    delegate TEXT NOT NULL,
    from_at BIGINT NOT NULL,
    until_at BIGINT NOT NULL,
    record TEXT NOT NULL
  )`,
  'CREATE INDEX hp_delegations_delegate ON hp_delegations (delegate, until_at)',
  // The purge reads ended delegations oldest first.
  'CREATE INDEX hp_delegations_ending ON hp_delegations (until_at)',
  `CREATE TABLE hp_waiting (
    app TEXT NOT NULL,
    tool TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (app, tool)
  )`,
  'ALTER TABLE hp_sessions ADD COLUMN sla_due_at BIGINT',
  'CREATE INDEX hp_sessions_sla_due ON hp_sessions (sla_due_at, session_id) WHERE sla_due_at IS NOT NULL',
];

/**
 * Version 3: grants (remembered permissions to run a tool without a pause): one row per
 * grant, found by its user, app and tool when a call may be covered, listed by user
 * newest first, and purged a retention after its expiry.
 */
const V3_STATEMENTS = [
  `CREATE TABLE hp_grants (
    grant_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    app TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT,
    record TEXT NOT NULL
  )`,
  'CREATE INDEX hp_grants_in_force ON hp_grants (user_id, app, tool_name, expires_at)',
  'CREATE INDEX hp_grants_owner ON hp_grants (user_id, created_at, grant_id)',
  'CREATE INDEX hp_grants_expiry ON hp_grants (expires_at)',
];

/**
 * Version 4: who listens. A row per relay channel someone listens to (a session's id, or
 * the inbox channel), kept by its listener and ending soon after it stops: a session's
 * read and commit answer whether its row is there, so nothing is published (PostgreSQL:
 * no NOTIFY) to a session or inbox nobody listens to.
 */
const V4_STATEMENTS = [
  `CREATE TABLE hp_listened (
    channel TEXT PRIMARY KEY,
    until_at BIGINT NOT NULL
  )`,
  'CREATE INDEX hp_listened_ending ON hp_listened (until_at)',
];

/** Every step, in order; the last one's version is the schema this code runs on. */
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'sessions, pauses, runs, audit, events, state, indexes, ledger, records',
    up: (tx) => runAll(tx, [...V1_SESSIONS, ...V1_RECORDS]),
  },
  {
    version: 2,
    name: 'outbox, delegations, waiting counts, SLA index',
    up: async (tx) => {
      await runAll(tx, V2_STATEMENTS);
      await backfillV2(tx);
    },
  },
  {
    version: 3,
    name: 'grants',
    up: (tx) => runAll(tx, V3_STATEMENTS),
  },
  {
    version: 4,
    name: 'listened channels',
    up: (tx) => runAll(tx, V4_STATEMENTS),
  },
];

/** The schema version this code runs on. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/**
 * The waiting counts and SLA due times of the pauses that already wait when version 2
 * arrives, computed from their records as the store's commits would have kept them: each
 * paused session's latest pause, while pending, adds `waitingOf(pause)` to hp_waiting and
 * scores the session by `nextSlaAt(pause)`. Runs once, under the schema lock.
 */
export async function backfillV2(tx: SqlQueries): Promise<void> {
  const { rows } = await tx.query(
    `SELECT s.session_id, p.record FROM hp_sessions s
       JOIN hp_pauses p ON p.session_id = s.session_id AND p.pause_id = s.pause_id
      WHERE s.status = 'paused'`,
  );
  const waiting = new Map<string, number>();
  for (const row of rows) {
    const sessionId = String(row.session_id);
    const pause = decodeRecord('pause', String(row.record), sessionId);
    if (pause.status !== 'pending') continue;
    for (const [key, count] of waitingOf(pause)) waiting.set(key, (waiting.get(key) ?? 0) + count);
    const due = nextSlaAt(pause);
    if (due !== undefined) {
      await tx.query('UPDATE hp_sessions SET sla_due_at = $1 WHERE session_id = $2', [
        due,
        sessionId,
      ]);
    }
  }
  for (const { app, tool, count } of waitingCounts(waiting)) {
    await tx.query('INSERT INTO hp_waiting (app, tool, count) VALUES ($1, $2, $3)', [
      app,
      tool,
      count,
    ]);
  }
}
