import { SqlStore } from '../sql/sql-store.js';
import { PostgresDriver } from './postgres-driver.js';
import type { PostgresStoreOptions } from './postgres-store-options.js';

/**
 * The store on PostgreSQL: any number of instances on one database, each commit one
 * transaction. A pool given by the host is used as it is and never ended.
 */
export class PostgresStore extends SqlStore {
  constructor(options: PostgresStoreOptions) {
    super(
      new PostgresDriver({ url: options.url, pool: options.pool, max: options.maxConnections }),
      {
        sessionTtlSeconds: options.sessionTtlSeconds,
        migrate: options.migrate,
      },
    );
  }

  /**
   * A store whose database answered and runs on this code's schema (migrated when
   * allowed); closes it and rejects otherwise (STORE_UNAVAILABLE, SCHEMA_OUTDATED,
   * SCHEMA_TOO_NEW).
   */
  static async connect(options: PostgresStoreOptions): Promise<PostgresStore> {
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
