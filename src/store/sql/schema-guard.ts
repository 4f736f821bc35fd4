import type {
  SqlDriver,
  SqlParam,
  SqlQueries,
  SqlResult,
  SqlValue,
  StatementOptions,
} from './sql-driver.js';

/**
 * `driver` with every call made only once `ready` (the schema check) resolved, so
 * neither the store nor its records ever touch a database whose schema is not this
 * code's. A failed check is tried again on the next call (the database may have been
 * away, or migrated meanwhile).
 */
export function schemaGuarded(driver: SqlDriver, check: () => Promise<void>): SqlDriver {
  let checked: Promise<void> | undefined;
  const ready = () => {
    checked ??= check().catch((error: unknown) => {
      checked = undefined;
      throw error;
    });
    return checked;
  };
  return {
    dialect: driver.dialect,
    relay: driver.relay,
    async query(sql: string, params?: SqlValue[], options?: StatementOptions): Promise<SqlResult> {
      await ready();
      return driver.query(sql, params, options);
    },
    async write(sql: string, params?: SqlParam[], options?: StatementOptions): Promise<SqlResult> {
      await ready();
      return driver.write(sql, params, options);
    },
    async transaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T> {
      await ready();
      return driver.transaction(work);
    },
    async schemaTransaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T> {
      await ready();
      return driver.schemaTransaction(work);
    },
    async databaseBytes(): Promise<number | undefined> {
      await ready();
      return driver.databaseBytes();
    },
    close: () => driver.close(),
  };
}
