import { join } from 'node:path';
import type { HoldpointConfig } from '../config/config.js';
import { internalStore } from '../library/stores.js';
import { PostgresDriver } from '../store/postgres/postgres-driver.js';
import { migrateSchema } from '../store/sql/schema/migrate.js';
import type { SqlDriver } from '../store/sql/sql-driver.js';
import { SqliteDriver } from '../store/sqlite/sqlite-driver.js';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-store-options.js';
import { presentStoreStats } from '../transports/http/index.js';
import { createStore, dataDirOf } from './holdpoint-from-config.js';
import { storeLocation } from './store-location.js';

/** A connection to the configured SQL store's database, or none for memory and Redis. */
function sqlDriverOf(config: HoldpointConfig): SqlDriver | undefined {
  switch (config.store) {
    case 'sqlite':
      return new SqliteDriver({
        path: join(dataDirOf(config), SQLITE_FILE_NAME),
        synchronous: config.sqliteSynchronous,
      });
    case 'postgres':
      return new PostgresDriver({ url: config.postgresUrl, max: 1 });
    default:
      return undefined;
  }
}

/**
 * `holdpoint db migrate`: brings the configured SQL store's schema to `to` (default:
 * the latest this version knows), one step per transaction, and says what it did: from
 * which version to which, and each step; or that there was nothing to do. Memory and
 * Redis keep no schema (their records carry their own version).
 */
export async function migrateDatabase(config: HoldpointConfig, to?: number): Promise<string> {
  const where = `The ${config.store} store (${storeLocation(config)})`;
  const driver = sqlDriverOf(config);
  if (!driver) return `${where} has no schema to migrate: its records carry their own version.`;
  try {
    const result = await migrateSchema(driver, to === undefined ? {} : { to });
    if (result.applied.length === 0) {
      return `${where} is at schema version ${result.to}: nothing to migrate.`;
    }
    return [
      `${where}: migrating the schema from version ${result.from} to ${result.to}.`,
      ...result.applied.map((step) => `  ${step.version}: ${step.name}`),
      `Done: schema version ${result.to}.`,
    ].join('\n');
  } finally {
    await driver.close();
  }
}

/** `holdpoint db stats`: what the configured store holds, as `GET /api/store` answers it (JSON). */
export async function storeStatsJson(config: HoldpointConfig): Promise<string> {
  const store = internalStore(createStore(config));
  try {
    return JSON.stringify(presentStoreStats(await store.stats()), null, 2);
  } finally {
    await store.close();
  }
}
