import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { isClaimedWork } from '../../core/claimed-work.js';
import { DEFAULTS } from '../../core/defaults.js';
import { HoldpointError } from '../../core/errors.js';
import type {
  SqlDriver,
  SqlParam,
  SqlQueries,
  SqlResult,
  StatementOptions,
} from '../sql/sql-driver.js';
import { ConnectionQueue } from './connection-queue.js';
import { PostgresRelay } from './postgres-relay.js';

/** What the PostgreSQL driver connects with: a URL, or the host's own pool. */
export interface PostgresDriverOptions {
  /** e.g. `postgres://user@127.0.0.1:5432/holdpoint`. */
  url?: string;
  /** An existing `pg.Pool`: used as it is, never ended by the store. */
  pool?: pg.Pool;
  /** Connections of the pool the driver opens from `url`. Default 10. */
  max?: number;
  /**
   * How many requests may wait for a connection before new ones are refused (STORE_BUSY).
   * Default `DEFAULTS.postgresMaxWaiting`.
   */
  maxWaiting?: number;
  /** Whether a statement marked `prepared` is a named prepared statement. Default true. */
  preparedStatements?: boolean;
  /**
   * Called with each connection as it is handed to a caller, before its first statement:
   * a test's hook to slow or hold the holder of a connection.
   */
  onCheckout?: (client: pg.PoolClient) => Promise<void> | void;
}

const INT8 = 20;
const NUMERIC = 1700;
/** BIGINT and COUNT(*) as numbers (times and counts fit in 2^53), per query, so a host's pool keeps its own parsers. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8 || oid === NUMERIC
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** The name of `sql` as a prepared statement: the same text has the same name. */
function statementName(sql: string): string {
  return `hp_${createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`;
}

/**
 * How long opening a connection may take. Waiting for a free one is not timed: callers
 * take turns (ConnectionQueue), and past its bound a new one is refused as STORE_BUSY.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/** Errors that retrying the whole transaction resolves: a deadlock, a serialization failure. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_TRANSACTION_ATTEMPTS = 5;
/** How long a COMMIT whose answer was lost waits for its server process to end. */
const LOST_COMMIT_SETTLE_MS = 5_000;
const LOST_COMMIT_POLL_MS = 20;
/** The advisory lock every instance takes to change the schema (any fixed 64-bit number). */
const SCHEMA_LOCK = 4_707_010_024;

/**
 * Whether `error` means the connection failed (refused, reset, terminated, shut down) or
 * was never granted: none free within the timeout, the database does not exist (3D000),
 * the credentials are refused (class 28). Those come only as a connection starts, so
 * nothing was sent.
 */
export function isConnectionError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (
    typeof code === 'string' &&
    /^(08|28|3D000|57P0|53300)|^E(CONN|PIPE|TIMEDOUT|HOSTUNREACH|NOTFOUND|AI_AGAIN)/.test(code)
  ) {
    return true;
  }
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
    message ?? '',
  );
}

function ignoreError(): void {}

/** A COMMIT was sent and its answer lost, on the connection of server process `pid`. */
class LostCommit extends Error {
  constructor(readonly pid: number | undefined) {
    super('The connection to PostgreSQL dropped as a commit was sent.');
  }
}

function unavailable(error: unknown): HoldpointError {
  if (error instanceof HoldpointError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new HoldpointError('STORE_UNAVAILABLE', `PostgreSQL cannot be reached: ${message}`);
}

/**
 * VALIDATION_FAILED, at once, for a URL that names no user where pg would find none
 * either (no `PGUSER`, no `USER`): it would otherwise fail each connection, and the
 * server would answer 503 while it waited for a database it can never sign in to.
 */
function requireUser(url: string): void {
  let named: URL;
  try {
    named = new URL(url);
  } catch {
    return; // pg reports a URL it cannot read itself.
  }
  if (named.username || named.searchParams.has('user')) return;
  if (process.env.PGUSER || process.env.USER) return;
  named.password = '';
  throw new HoldpointError(
    'VALIDATION_FAILED',
    `The PostgreSQL URL ${named.href} names no user, and neither PGUSER nor USER is set: name one, e.g. postgres://holdpoint@${named.host}${named.pathname}.`,
    { field: 'url' },
  );
}

/**
 * PostgreSQL through node-postgres: a pool, one connection per statement or transaction
 * (`BEGIN` … `COMMIT`, or a `write` committing on its own, at READ COMMITTED; the store's
 * compare-and-set on a session's version row makes racing commits wait for each other,
 * then lose), taken in turn (ConnectionQueue: back-pressure, never a timed wait). A
 * connection that drops before a COMMIT or a write was sent: STORE_UNAVAILABLE; after
 * it: OUTCOME_UNKNOWN, once its server process ended (so a read that follows finds the
 * commit if it was made). A deadlock or serialization failure runs the work again.
 */
export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  /** LISTEN/NOTIFY between every handle of the database, in any process. */
  readonly relay: PostgresRelay;
  readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  /** Turns at the pool's connections: every statement of the driver and its relay takes one. */
  private readonly turns: ConnectionQueue;
  private readonly onCheckout: PostgresDriverOptions['onCheckout'];
  private readonly preparedStatements: boolean;

  constructor(options: PostgresDriverOptions) {
    if (options.pool) {
      this.pool = options.pool;
      this.ownsPool = false;
    } else {
      requireUser(options.url ?? '');
      // Opening a connection takes at most CONNECT_TIMEOUT_MS (an unreachable server is
      // STORE_UNAVAILABLE, not a hung request); keep-alive finds a peer that vanished
      // behind a partition.
      this.pool = new pg.Pool({
        connectionString: options.url,
        max: options.max ?? DEFAULTS.postgresMaxConnections,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        keepAlive: true,
      });
      this.ownsPool = true;
    }
    this.turns = new ConnectionQueue(
      this.pool.options.max ?? DEFAULTS.postgresMaxConnections,
      options.maxWaiting ?? DEFAULTS.postgresMaxWaiting,
    );
    this.onCheckout = options.onCheckout;
    this.preparedStatements = options.preparedStatements ?? true;
    // An idle connection that dies (the server restarted) must not crash the process.
    this.pool.on('error', () => undefined);
    this.relay = new PostgresRelay({
      pool: this.pool,
      query: (sql, params) => this.query(sql, params),
    });
  }

  /** How many callers wait for a connection now. */
  get waiting(): number {
    return this.turns.waiting;
  }

  /**
   * What node-postgres runs for `sql`: a prepared statement is named after its text, so
   * each connection parses and plans it once and then only binds and executes it.
   */
  private statement(
    sql: string,
    params: SqlParam[],
    options: StatementOptions | undefined,
  ): pg.QueryConfig<SqlParam[]> {
    const name = options?.prepared && this.preparedStatements ? statementName(sql) : undefined;
    return { name, text: sql, values: params, types: TYPES };
  }

  async query(
    sql: string,
    params: SqlParam[] = [],
    options?: StatementOptions,
  ): Promise<SqlResult> {
    return this.withConnection(async (client) => {
      try {
        const result = await client.query(this.statement(sql, params, options));
        return { rows: result.rows, changes: result.rowCount ?? 0 };
      } catch (error) {
        if (isConnectionError(error)) throw new BrokenConnection(unavailable(error));
        throw error;
      }
    });
  }

  write(sql: string, params: SqlParam[] = [], options?: StatementOptions): Promise<SqlResult> {
    return this.retrying(() =>
      this.withConnection(async (client) => {
        try {
          const result = await client.query(this.statement(sql, params, options));
          return { rows: result.rows, changes: result.rowCount ?? 0 };
        } catch (error) {
          if (!isConnectionError(error)) throw error;
          // The statement was sent: it commits on its own, so it may be stored.
          throw new BrokenConnection(new LostCommit(processId(client)));
        }
      }),
    );
  }

  transaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T> {
    return this.retrying(() => this.attempt(work, false));
  }

  schemaTransaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T> {
    return this.retrying(() => this.attempt(work, true));
  }

  async databaseBytes(): Promise<number | undefined> {
    const { rows } = await this.query(
      `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind = 'r' AND c.relname LIKE 'hp\\_%' AND n.nspname = current_schema()`,
    );
    return Number(rows[0]?.bytes ?? 0);
  }

  async close(): Promise<void> {
    await this.relay.close();
    if (this.ownsPool) await this.pool.end();
  }

  /**
   * Runs `once` with a connection of the pool, taken in turn (claimed work first). A
   * connection `once` throws BrokenConnection for leaves the pool, and the caller gets
   * the BrokenConnection's cause.
   */
  private async withConnection<T>(once: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const release = await this.turns.take(isClaimedWork());
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      release();
      throw unavailable(error);
    }
    // A connection that drops while checked out emits 'error' besides failing its query:
    // the failed query is what reports it, and an unheard 'error' would crash the process.
    client.on('error', ignoreError);
    let broken: Error | undefined;
    try {
      await this.onCheckout?.(client);
      return await once(client);
    } catch (error) {
      if (error instanceof BrokenConnection) {
        broken = error;
        throw error.cause;
      }
      throw error;
    } finally {
      client.off('error', ignoreError);
      // A broken connection leaves the pool; a healthy one goes back to it.
      client.release(broken);
      release();
    }
  }

  /** Runs `once` again on a deadlock or serialization failure; settles a lost commit. */
  private async retrying<T>(once: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once();
      } catch (error) {
        if (error instanceof LostCommit) {
          await this.settleLostCommit(error.pid);
          throw new HoldpointError(
            'OUTCOME_UNKNOWN',
            'The connection to PostgreSQL dropped as a commit was sent; it may or may not be stored.',
          );
        }
        const code = (error as { code?: string }).code;
        if (!code || !RETRYABLE.has(code) || attempt >= MAX_TRANSACTION_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Waits until the server process whose COMMIT answer was lost has ended, so that what
   * is read afterwards holds the commit if it was made: the server may still be making
   * it when the client sees the connection drop, and a read before it ends would find
   * nothing and have the transition computed again over its own commit. A process still
   * idle in its transaction never got the COMMIT: it is ended, which rolls it back.
   * Best effort, on a connection of its own (the dropped one was released first): a
   * database that does not answer leaves the outcome to the store's settling.
   */
  private async settleLostCommit(pid: number | undefined): Promise<void> {
    if (!pid) return;
    const deadline = Date.now() + LOST_COMMIT_SETTLE_MS;
    try {
      while (Date.now() < deadline) {
        const { rows } = await this.query('SELECT state FROM pg_stat_activity WHERE pid = $1', [
          pid,
        ]);
        const state = rows[0]?.state;
        if (!rows[0]) return;
        if (typeof state === 'string' && state.startsWith('idle in transaction')) {
          await this.query('SELECT pg_terminate_backend($1)', [pid]);
        }
        await sleep(LOST_COMMIT_POLL_MS);
      }
    } catch {
      // Unreachable or not allowed: the store's own settling reads the session again.
    }
  }

  private attempt<T>(work: (tx: SqlQueries) => Promise<T>, schema: boolean): Promise<T> {
    return this.withConnection(async (client) => {
      const tx: SqlQueries = {
        query: async (sql, params = [], options) => {
          const result = await client.query(this.statement(sql, params, options));
          return { rows: result.rows, changes: result.rowCount ?? 0 };
        },
      };
      try {
        await client.query('BEGIN');
        if (schema) await client.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      } catch (error) {
        if (isConnectionError(error)) throw new BrokenConnection(unavailable(error));
        throw error;
      }
      let result: T;
      try {
        result = await work(tx);
      } catch (error) {
        if (isConnectionError(error)) throw new BrokenConnection(unavailable(error));
        const rollback = await client.query('ROLLBACK').then(
          () => undefined,
          (failed: unknown) => failed,
        );
        if (rollback) throw new BrokenConnection(error, rollback);
        throw error;
      }
      try {
        await client.query('COMMIT');
      } catch (error) {
        if (!isConnectionError(error)) throw error;
        throw new BrokenConnection(new LostCommit(processId(client)));
      }
      return result;
    });
  }
}

/** The server process of `client`'s connection. */
function processId(client: pg.PoolClient): number | undefined {
  return (client as unknown as { processID?: number }).processID;
}

/**
 * Thrown inside `withConnection` when the connection cannot be used again: it leaves
 * the pool and `cause` is what the caller gets; `reason` says why, when it is not the
 * cause itself (a ROLLBACK that failed after the work did).
 */
class BrokenConnection extends Error {
  constructor(
    override readonly cause: unknown,
    readonly reason: unknown = cause,
  ) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}
