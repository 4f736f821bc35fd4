import type { SqlValue } from '../sql/sql-driver.js';
import { SqlStore } from '../sql/sql-store.js';
import { PostgresDriver } from './postgres-driver.js';
import type { PostgresRelay } from './postgres-relay.js';
import { writeSessionInOneStatement } from './postgres-session-commit.js';
import type { PostgresStoreHooks, PostgresStoreOptions } from './postgres-store-options.js';

/**
 * The store on PostgreSQL: any number of instances on one database, each commit one
 * statement (one round trip). A pool given by the host is used as it is and never ended.
 */
export class PostgresStore extends SqlStore {
  private readonly postgres: PostgresDriver;

  constructor(options: PostgresStoreOptions & PostgresStoreHooks) {
    const driver = new PostgresDriver({
      url: options.url,
      pool: options.pool,
      max: options.maxConnections,
      maxWaiting: options.maxWaiting,
      preparedStatements: options.preparedStatements,
      onCheckout: options.onCheckout,
    });
    super(driver, {
      sessionTtlSeconds: options.sessionTtlSeconds,
      migrate: options.migrate,
      writeSession: writeSessionInOneStatement,
    });
    // The relay's rows (hp_listened) wait for the schema check like the store's. Its
    // array parameters reach PostgresDriver.query, which takes them.
    (this.relay as PostgresRelay).route((sql, params, options) =>
      this.db.query(sql, params as SqlValue[], options),
    );
    this.postgres = driver;
  }

  /** Calls waiting for one of the pool's connections now. */
  get waitingForConnection(): number {
    return this.postgres.waiting;
  }

  /**
   * A store whose database answered and runs on this code's schema (migrated when
   * allowed); closes it and rejects otherwise (STORE_UNAVAILABLE, SCHEMA_OUTDATED,
   * SCHEMA_TOO_NEW).
   */
  static async connect(options: PostgresStoreOptions & PostgresStoreHooks): Promise<PostgresStore> {
    const store = new PostgresStore(options);
    try {
      await store.ping();
      return store;
    } catch (error) {
      await store.close();
      throw error;
    }
  }
}
