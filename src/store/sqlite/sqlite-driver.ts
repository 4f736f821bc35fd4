import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { HoldpointError } from '../../core/errors.js';
import { MemoryRelay } from '../memory/memory-relay.js';
import type { RunRelay } from '../run-relay.js';
import type { SqlDriver, SqlParam, SqlQueries, SqlResult, SqlValue } from '../sql/sql-driver.js';
import { findDamagedPage } from './damaged-page.js';
import { whyReadOnly } from './read-only.js';

/** How SQLite makes a commit durable (`PRAGMA synchronous` in WAL mode). */
export type SqliteSynchronous = 'normal' | 'full';

/** What the SQLite driver opens. */
export interface SqliteDriverOptions {
  /** The database file; its directory is made when missing. */
  path: string;
  /**
   * `normal` (default): a commit survives the process being killed at any moment; a
   * power loss or an operating system crash may lose the last commits before the WAL is
   * synced (never corrupting the database). `full`: every commit is synced to disk
   * before it is acknowledged, so a power loss loses nothing acknowledged (slower).
   */
  synchronous?: SqliteSynchronous;
  /** How long a statement waits for another connection's write lock (ms). Default 5,000. */
  busyTimeoutMs?: number;
}

/**
 * What the handles of one database file in this process share: one relay, so two
 * handles behave as one machine (processes do not share a relay, see docs/stores.md),
 * and one queue: `node:sqlite` blocks the thread while it waits for a lock, so a handle
 * waiting for another handle's open transaction in this same process would wait for a
 * transaction that cannot go on; queued, they take turns instead.
 */
const files = new Map<string, { relay: MemoryRelay; handles: number; queue: Promise<unknown> }>();

/** Prepared statements kept at most (statements with a varying number of rows vary). */
const MAX_STATEMENTS = 500;

/** `$1`, `$2`… as SQLite's numbered parameters `?1`, `?2`…. */
function numbered(sql: string): string {
  return sql.replace(/\$(\d+)/g, '?$1');
}

/** A failure of the database itself (locked past the timeout, disk, I/O) as STORE_UNAVAILABLE. */
function storeError(error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (/locked|busy|disk|I\/O|full|readonly|not open|closed/i.test(message)) {
    return new HoldpointError('STORE_UNAVAILABLE', `The SQLite database failed: ${message}`);
  }
  return error;
}

/** Why the database file cannot be used, naming it: the operator must fix that file or directory. */
function unopenable(path: string, error: unknown): HoldpointError {
  const message = error instanceof Error ? error.message : String(error);
  return new HoldpointError(
    'STORE_UNAVAILABLE',
    `The SQLite database ${path} cannot be opened: ${message}`,
  );
}

/**
 * Opens (making its directory when missing) the database file. A directory that is a
 * file, a file that is not a database, a read-only directory or file: reported as
 * STORE_UNAVAILABLE naming the file (and what is read-only), not as the file system's
 * or SQLite's bare message ("unable to open database file").
 */
function openDatabase(path: string, busyTimeoutMs: number): DatabaseSync {
  const readOnly = whyReadOnly(path);
  if (readOnly) throw unopenable(path, `${readOnly}; the store writes the database there`);
  try {
    mkdirSync(dirname(path), { recursive: true });
    // The lock wait is set at open, not by a later pragma: the first statement (switching
    // to WAL) already needs the lock another process starting on the same file may hold.
    return new DatabaseSync(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw unopenable(path, error);
  }
}

/**
 * Checks, once a process first opens the file, that no page of it is damaged (see
 * findDamagedPage): the WAL is first copied into the file as far as nobody reading
 * stops it (a passive checkpoint, which waits for nobody), so the file holds the
 * latest commits. A page written over is refused before anything is read from it.
 */
function checkPages(db: DatabaseSync, path: string): void {
  db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  const pages = Number(db.prepare('PRAGMA page_count').get()?.page_count ?? 0);
  const damaged = findDamagedPage(path, pages);
  if (damaged) {
    throw new Error(
      `page ${damaged.page} of ${pages} is damaged (${damaged.why}); restore the database from a backup`,
    );
  }
}

/**
 * SQLite through Node's built-in `node:sqlite`: one connection, WAL journal, foreign
 * keys on. Its calls are synchronous, so the driver runs one statement or transaction at
 * a time (a queue, shared by the handles of one file in this process): a transaction's
 * statements are never interleaved with anyone else's, and nobody reads what a
 * transaction wrote before it commits. The first handle a process opens on a file
 * refuses it when it is read-only or has a damaged page (STORE_UNAVAILABLE, naming why).
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  readonly relay: RunRelay;
  readonly path: string;
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private readonly file: { relay: MemoryRelay; handles: number; queue: Promise<unknown> };
  private closed = false;

  constructor(options: SqliteDriverOptions) {
    this.path = resolve(options.path);
    this.db = openDatabase(this.path, Math.trunc(options.busyTimeoutMs ?? 5_000));
    try {
      this.db.exec('PRAGMA journal_mode = WAL');
      this.db.exec(`PRAGMA synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      this.db.exec('PRAGMA foreign_keys = ON');
      if (!files.has(this.path)) checkPages(this.db, this.path);
    } catch (error) {
      this.db.close();
      throw unopenable(this.path, error);
    }
    this.file = files.get(this.path) ?? {
      relay: new MemoryRelay(),
      handles: 0,
      queue: Promise.resolve(),
    };
    this.file.handles += 1;
    files.set(this.path, this.file);
    this.relay = this.file.relay;
  }

  query(sql: string, params: SqlValue[] = []): Promise<SqlResult> {
    return this.serially(async () => this.run(sql, params));
  }

  /** In process, an answer cannot be lost: a statement on its own is its own transaction. */
  write(sql: string, params: SqlParam[] = []): Promise<SqlResult> {
    if (params.some(Array.isArray)) throw new TypeError('SQLite takes no array parameters');
    return this.query(sql, params as SqlValue[]);
  }

  transaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T> {
    return this.serially(async () => {
      this.exec('BEGIN IMMEDIATE');
      try {
        const result = await work({ query: async (sql, params = []) => this.run(sql, params) });
        this.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  /** SQLite's write lock (`BEGIN IMMEDIATE`) already keeps schema changes one at a time. */
  schemaTransaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T> {
    return this.transaction(work);
  }

  async databaseBytes(): Promise<number | undefined> {
    const [pages] = (await this.query('PRAGMA page_count')).rows;
    const [size] = (await this.query('PRAGMA page_size')).rows;
    return Number(pages?.page_count ?? 0) * Number(size?.page_size ?? 0);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file.queue.catch(() => undefined);
    this.db.close();
    if (--this.file.handles === 0 && files.get(this.path) === this.file) files.delete(this.path);
  }

  /** Runs `work` after everything queued before it, alone. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.file.queue.then(() => {
      if (this.closed) {
        throw new HoldpointError('STORE_UNAVAILABLE', 'The SQLite store is closed.');
      }
      return work();
    });
    this.file.queue = run.catch(() => undefined);
    return run;
  }

  private exec(sql: string): void {
    try {
      this.db.exec(sql);
    } catch (error) {
      throw storeError(error);
    }
  }

  private run(sql: string, params: SqlValue[]): SqlResult {
    try {
      let statement = this.statements.get(sql);
      if (!statement) {
        statement = this.db.prepare(numbered(sql));
        if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
        this.statements.set(sql, statement);
      }
      if (statement.columns().length > 0) {
        const rows = statement.all(...params) as SqlResult['rows'];
        return { rows, changes: rows.length };
      }
      return { rows: [], changes: Number(statement.run(...params).changes) };
    } catch (error) {
      throw storeError(error);
    }
  }
}
