import { join } from 'node:path';
import { SqlStore } from '../sql/sql-store.js';
import { SqliteDriver } from './sqlite-driver.js';
import { SQLITE_FILE_NAME, type SqliteStoreOptions } from './sqlite-store-options.js';

/** Where a SQLite store's database is: `path`, or `<dataDir>/holdpoint.db`. */
function databasePath(options: SqliteStoreOptions): string {
  return options.path ?? join(options.dataDir ?? '.', SQLITE_FILE_NAME);
}

/**
 * The embedded durable store: one SQLite file (WAL), no server to run. Handles on the
 * same file in one process share the relay, so they behave as one machine.
 */
export class SqliteStore extends SqlStore {
  /** The database file. */
  readonly path: string;

  constructor(options: SqliteStoreOptions) {
    const driver = new SqliteDriver({
      path: databasePath(options),
      synchronous: options.synchronous,
    });
    super(driver, { sessionTtlSeconds: options.sessionTtlSeconds, migrate: options.migrate });
    this.path = driver.path;
  }
}
