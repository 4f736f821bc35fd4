import type { RunRelay } from '../run-relay.js';

/** A value a statement takes or a row holds: text (JSON included), a number, or NULL. */
export type SqlValue = string | number | null;

/** A statement's parameter: a value, or (PostgreSQL only, for `unnest`) an array of them. */
export type SqlParam = SqlValue | SqlValue[];

/** One row, by column name. Integers come back as numbers on every driver. */
export type SqlRow = Record<string, SqlValue>;

/** What a statement gave: its rows (a SELECT, or `RETURNING`), and how many rows it changed. */
export interface SqlResult {
  rows: SqlRow[];
  changes: number;
}

/** How a statement is run. */
export interface StatementOptions {
  /**
   * Its text is one of the few the store runs at every commit and read of a session, and
   * no list in it grows with the data: PostgreSQL keeps it parsed and planned on each
   * connection (a named prepared statement) rather than planning it at every call, which
   * took most of a commit's time. SQLite keeps every statement prepared anyway.
   */
  prepared?: boolean;
}

/**
 * Statements on one connection. The SQL is written once for every dialect: `$1`, `$2`…
 * placeholders (the SQLite driver numbers them `?1`, `?2`…), `ON CONFLICT … DO UPDATE`,
 * `RETURNING`, TEXT for JSON, BIGINT for times in epoch milliseconds, INTEGER 0/1 for
 * flags.
 */
export interface SqlQueries {
  query(sql: string, params?: SqlValue[], options?: StatementOptions): Promise<SqlResult>;
}

/**
 * A relay that publishes only where someone listens, told so by the store's reads and
 * commits of each session (and of the inbox by every commit).
 */
export interface ListenedRelay extends RunRelay {
  /** What a read or commit of the session found: whether anyone listens to it now. */
  noteListened(sessionId: string, listened: boolean): void;
  /** What a commit found: whether anyone listens to the inbox channel now. */
  noteInboxListened(listened: boolean): void;
}

/** The SQL dialects a driver speaks. */
export type SqlDialect = 'sqlite' | 'postgres';

/**
 * A database the SQL store runs on: SQLite through `node:sqlite`, or PostgreSQL through
 * `pg`. What differs between them lives here, nothing else does.
 *
 * Failures are the store's stable codes: STORE_UNAVAILABLE when the database could not
 * be reached and nothing was sent; OUTCOME_UNKNOWN when a transaction's COMMIT was sent
 * and its answer lost (the connection dropped), so it may or may not be stored.
 */
export interface SqlDriver extends SqlQueries {
  readonly dialect: SqlDialect;
  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled
   * back when it throws (its error is rethrown). Transactions that write take the
   * database's write lock first (SQLite `BEGIN IMMEDIATE`), so two never deadlock.
   */
  transaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T>;
  /**
   * Runs one statement that writes as a transaction of its own, in one round trip. Its
   * answer lost once it was sent is OUTCOME_UNKNOWN (it may be stored), as a COMMIT's is;
   * a deadlock or serialization failure runs it again.
   */
  write(sql: string, params?: SqlParam[], options?: StatementOptions): Promise<SqlResult>;
  /**
   * Runs `work` in one transaction that holds the schema lock (PostgreSQL: an advisory
   * transaction lock; SQLite: the write lock), so two instances starting at once never
   * migrate the same database twice.
   */
  schemaTransaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T>;
  /** Carries run and inbox messages between the handles of this database. */
  readonly relay: RunRelay;
  /** What the database takes on disk, in bytes, where the driver can tell. */
  databaseBytes(): Promise<number | undefined>;
  close(): Promise<void>;
}
