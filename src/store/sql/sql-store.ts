import type { Session } from '@google/adk';
import { DEFAULTS } from '../../core/defaults.js';
import type { AuditEntry, Pause, RunRecord } from '../../core/types.js';
import { decodeRecord } from '../record-codec.js';
import type {
  NewSession,
  Page,
  PageCursor,
  RunCounts,
  SessionSnapshot,
  SessionWrites,
  StoreStats,
} from '../store.js';
import { TransactionalStore, type VersionedSnapshot } from '../transactional-store.js';
import { type WaitingCount, waitingCounts, waitingKey } from '../waiting-counts.js';
import { ensureSchema, schemaVersion } from './schema/migrate.js';
import { schemaGuarded } from './schema-guard.js';
import type { CommitAnswer, SessionCommit } from './sql-commit-rows.js';
import { SqlDelegations } from './sql-delegations.js';
import type { ListenedRelay, SqlDriver } from './sql-driver.js';
import { SqlEffectLedger } from './sql-effect-ledger.js';
import { SqlGrants } from './sql-grants.js';
import { SqlOutbox } from './sql-outbox.js';
import { purgeExpired } from './sql-purge.js';
import { SqlRateCounters } from './sql-rate-counters.js';
import { SqlRequestRecords } from './sql-request-records.js';
import { SqlSessionReads } from './sql-session-reads.js';
import { writeSession } from './sql-session-writes.js';
import { SqlUserMemories } from './sql-user-memories.js';

const DEFAULT_EFFECT_LOCK_MS = 5 * 60_000;

/** What a SQL store takes besides its driver. */
export interface SqlStoreOptions {
  /** A session is kept this long after its last change (or its pause's retention). */
  sessionTtlSeconds?: number;
  /** Whether an older schema is migrated at start (default) or refused (SCHEMA_OUTDATED). */
  migrate?: boolean;
  /**
   * How a commit of a session is written: by default statement by statement in one
   * transaction (`writeSession`); PostgreSQL gives its one-statement commit.
   */
  writeSession?: (db: SqlDriver, commit: SessionCommit) => Promise<CommitAnswer>;
}

/** The default commit: `writeSession`'s statements in one transaction of `db`. */
async function inTransaction(db: SqlDriver, commit: SessionCommit): Promise<CommitAnswer> {
  return { stored: await db.transaction((tx) => writeSession(tx, commit)) };
}

/**
 * The store on a SQL database (SQLite or PostgreSQL, through a SqlDriver): every
 * transition is one transaction, a compare-and-set on the session row's version that
 * writes the session's pauses, runs, audit, events, state, the index columns and rows
 * the commit makes true, the waiting counts and the commit's deliveries, or nothing.
 * Lists are index queries. Every call waits for the schema check first.
 */
export class SqlStore extends TransactionalStore {
  readonly kind: SqlDriver['dialect'];
  readonly effects: SqlEffectLedger;
  readonly requests: SqlRequestRecords;
  readonly rates: SqlRateCounters;
  readonly memories: SqlUserMemories;
  readonly delegations: SqlDelegations;
  readonly outbox: SqlOutbox;
  readonly grants: SqlGrants;
  readonly relay: SqlDriver['relay'];
  /** The driver behind the schema check. */
  protected readonly db: SqlDriver;
  private readonly reads: SqlSessionReads;
  private readonly ttlMs: number;
  private readonly writeSession: NonNullable<SqlStoreOptions['writeSession']>;
  /** The relay, when it publishes only where someone listens (PostgreSQL's). */
  private readonly listened?: ListenedRelay;

  constructor(
    private readonly driver: SqlDriver,
    options: SqlStoreOptions = {},
  ) {
    super();
    this.kind = driver.dialect;
    this.ttlMs = (options.sessionTtlSeconds ?? DEFAULTS.sessionTtlSeconds) * 1000;
    this.writeSession = options.writeSession ?? inTransaction;
    this.db = schemaGuarded(driver, () => ensureSchema(driver, { migrate: options.migrate }));
    this.relay = driver.relay;
    if ('noteListened' in driver.relay) this.listened = driver.relay as ListenedRelay;
    this.reads = new SqlSessionReads(this.db);
    this.effects = new SqlEffectLedger(this.db, {
      resultTtlMs: this.ttlMs,
      lockTtlMs: DEFAULT_EFFECT_LOCK_MS,
    });
    this.requests = new SqlRequestRecords(this.db);
    this.rates = new SqlRateCounters(this.db);
    this.memories = new SqlUserMemories(this.db, this.ttlMs);
    this.delegations = new SqlDelegations(this.db);
    this.outbox = new SqlOutbox(this.db);
    this.grants = new SqlGrants(this.db);
  }

  protected async readSnapshot(sessionId: string): Promise<VersionedSnapshot | undefined> {
    const read = await this.reads.snapshot(sessionId, Date.now());
    if (read) this.listened?.noteListened(sessionId, read.listened);
    return read;
  }

  protected commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
    commitIds: string[],
  ): Promise<boolean> {
    return this.write({
      sessionId,
      before: read.snapshot,
      version: read.version,
      writes,
      commitIds,
    });
  }

  protected insert(session: NewSession, writes: SessionWrites, commitIds: string[]) {
    return this.write({ sessionId: session.sessionId, version: 'new', writes, commitIds });
  }

  private async write(
    commit: Omit<SessionCommit, 'now' | 'ttlMs' | 'deliveryRetentionSeconds'>,
  ): Promise<boolean> {
    const full: SessionCommit = {
      ...commit,
      now: Date.now(),
      ttlMs: this.ttlMs,
      deliveryRetentionSeconds: this.outbox.retentionSeconds,
    };
    const answer = await this.writeSession(this.db, full);
    // Learnt before the commit's news is published (after this returns).
    if (answer.listened !== undefined)
      this.listened?.noteListened(commit.sessionId, answer.listened);
    if (answer.inboxListened !== undefined) this.listened?.noteInboxListened(answer.inboxListened);
    return answer.stored;
  }

  loadSession(sessionId: string, app: string, userId: string): Promise<Session | undefined> {
    return this.reads.session(sessionId, app, userId, Date.now());
  }

  async getPause(sessionId: string, pauseId: string): Promise<Pause | undefined> {
    const { rows } = await this.db.query(
      `SELECT p.record FROM hp_pauses p JOIN hp_sessions s ON s.session_id = p.session_id
        WHERE p.session_id = $1 AND p.pause_id = $2 AND s.expires_at > $3`,
      [sessionId, pauseId, Date.now()],
    );
    const [row] = rows;
    return row ? decodeRecord('pause', String(row.record), sessionId) : undefined;
  }

  async getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.db.query(
      `SELECT r.record FROM hp_runs r JOIN hp_sessions s ON s.session_id = r.session_id
        WHERE r.invocation_id = $1 AND r.session_id = $2 AND s.expires_at > $3`,
      [invocationId, sessionId, Date.now()],
    );
    const [row] = rows;
    return row ? decodeRecord('run', String(row.record), sessionId) : undefined;
  }

  findApproval(approvalId: string): Promise<string | undefined> {
    return this.liveSessionOf('hp_approvals', 'approval_id', approvalId);
  }

  findRun(invocationId: string): Promise<string | undefined> {
    return this.liveSessionOf('hp_runs', 'invocation_id', invocationId);
  }

  /** The live session a lookup row points at. */
  private async liveSessionOf(table: string, column: string, id: string) {
    const { rows } = await this.db.query(
      `SELECT t.session_id FROM ${table} t JOIN hp_sessions s ON s.session_id = t.session_id
        WHERE t.${column} = $1 AND s.expires_at > $2`,
      [id, Date.now()],
    );
    return rows[0] ? String(rows[0].session_id) : undefined;
  }

  listInterrupted(
    { limit, after }: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    return this.reads.page({
      column: 's.lease_until',
      bound: '<=',
      boundValue: now,
      after,
      limit,
      now: Date.now(),
    });
  }

  listDuePauses(now: number, limit: number): Promise<string[]> {
    return this.reads.due('paused_until', now, limit);
  }

  listDueSla(now: number, limit: number): Promise<string[]> {
    return this.reads.due('sla_due_at', now, limit);
  }

  listPaused(
    { audiences, limit, after }: { audiences?: string[]; limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    if (audiences) return this.reads.pausedFor(audiences, { limit, after }, now);
    return this.reads.page({
      column: 's.paused_until',
      bound: '>',
      boundValue: now,
      after,
      limit,
      now: Date.now(),
    });
  }

  listUserSessions(
    userId: string,
    { limit, after }: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    // Scored as the other stores score an owner's entry: when it leaves the list.
    return this.reads.page({
      column: 's.updated_at',
      bound: '>',
      boundValue: now - this.ttlMs,
      scoreShift: this.ttlMs,
      descending: true,
      after,
      limit,
      now: Date.now(),
      where: 's.user_id = $4',
      whereValues: [userId],
    });
  }

  async listAudit(sessionId: string, offset: number, limit: number): Promise<AuditEntry[]> {
    const { rows } = await this.db.query(
      `SELECT a.line FROM hp_audit a JOIN hp_sessions s ON s.session_id = a.session_id
        WHERE a.session_id = $1 AND a.seq >= $2 AND a.seq < $3 AND s.expires_at > $4
        ORDER BY a.seq`,
      [sessionId, offset, offset + limit, Date.now()],
    );
    return rows.map((row) => decodeRecord('audit', String(row.line), sessionId));
  }

  async countWaiting(): Promise<WaitingCount[]> {
    const { rows } = await this.db.query('SELECT app, tool, count FROM hp_waiting');
    return waitingCounts(
      rows.map((row) => [waitingKey(String(row.app), String(row.tool)), Number(row.count)]),
    );
  }

  async countRuns(now: number): Promise<RunCounts> {
    const { rows } = await this.db.query(
      `SELECT COUNT(*) AS leased, COALESCE(SUM(CASE WHEN lease_until <= $1 THEN 1 ELSE 0 END), 0) AS lapsed
         FROM hp_sessions WHERE lease_until IS NOT NULL`,
      [now],
    );
    const leased = Number(rows[0]?.leased ?? 0);
    const interrupted = Number(rows[0]?.lapsed ?? 0);
    return { running: leased - interrupted, interrupted };
  }

  async takeSweepTurn(owner: string, ms: number): Promise<boolean> {
    const now = Date.now();
    const { rows } = await this.db.query(
      `INSERT INTO hp_locks (name, owner, until_at) VALUES ('sweep', $1, $2)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until_at = excluded.until_at
        WHERE hp_locks.until_at <= $3 OR hp_locks.owner = $1
       RETURNING owner`,
      [owner, now + ms, now],
    );
    return rows.length > 0;
  }

  async stats(): Promise<StoreStats> {
    const count = async (sql: string) => Number((await this.db.query(sql)).rows[0]?.n ?? 0);
    const [sessions, paused, running, deliveries, grants, bytes] = await Promise.all([
      count('SELECT COUNT(*) AS n FROM hp_sessions'),
      count('SELECT COUNT(*) AS n FROM hp_sessions WHERE paused_until IS NOT NULL'),
      count('SELECT COUNT(*) AS n FROM hp_sessions WHERE lease_until IS NOT NULL'),
      count('SELECT COUNT(*) AS n FROM hp_deliveries'),
      count('SELECT COUNT(*) AS n FROM hp_grants'),
      this.db.databaseBytes(),
    ]);
    return {
      kind: this.kind,
      schemaVersion: await schemaVersion(this.driver),
      sessions,
      paused,
      running,
      deliveries,
      grants,
      bytes,
    };
  }

  purgeExpired(now: number, limit: number): Promise<number> {
    return purgeExpired(this.db, now, limit, this.ttlMs);
  }

  /** The schema is this code's and the database answers (a bad schema surfaces here). */
  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }

  /** One row of hp_locks, `readiness`, written: a page of the database, as small as a write is. */
  protected async probeWrite(): Promise<void> {
    await this.db.query(
      `INSERT INTO hp_locks (name, owner, until_at) VALUES ('readiness', '', $1)
       ON CONFLICT (name) DO UPDATE SET until_at = excluded.until_at`,
      [Date.now()],
    );
  }

  async close(): Promise<void> {
    await this.driver.close();
  }
}
