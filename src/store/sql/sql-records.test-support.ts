import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresDriver } from '../postgres/postgres-driver.js';
import { PostgresScratch } from '../postgres/postgres-scratch.test-support.js';
import { SqliteDriver } from '../sqlite/sqlite-driver.js';
import { MIGRATIONS } from './schema/migrations.js';
import type { SqlDialect, SqlDriver } from './sql-driver.js';

/**
 * Creates the schema on an empty database by running every migration. On an empty
 * database version 2's backfill has nothing to do, so its placeholder (until the SQL
 * store's part writes it) is stepped over.
 */
async function createSchema(driver: SqlDriver): Promise<void> {
  for (const migration of MIGRATIONS) {
    await driver.schemaTransaction(async (tx) => {
      await migration.up(tx, driver.dialect).catch((error: unknown) => {
        if (!(error instanceof Error && error.message === 'backfillV2: not written yet')) {
          throw error;
        }
      });
    });
  }
}

/**
 * Test support: a database of the test file's own for one dialect (SQLite: a file in a
 * temp dir; PostgreSQL: a scratch database), with the schema created. `open` gives a new
 * driver on it each call (another connection, as another instance would have).
 */
export class SqlScratch {
  private dir?: string;
  private readonly postgres = new PostgresScratch();
  private readonly drivers: SqlDriver[] = [];
  private created?: Promise<void>;

  constructor(readonly dialect: SqlDialect) {}

  /** A new driver on the scratch database, the schema created on first use. */
  async open(): Promise<SqlDriver> {
    this.created ??= (async () => {
      if (this.dialect === 'postgres') await this.postgres.ready();
      else this.dir = mkdtempSync(join(tmpdir(), 'hp-'));
      await createSchema(this.connect());
    })();
    await this.created;
    return this.connect();
  }

  /** Closes every driver it opened and removes the database. */
  async cleanup(): Promise<void> {
    await Promise.all(this.drivers.map((driver) => driver.close()));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    await this.postgres.cleanup();
  }

  private connect(): SqlDriver {
    const driver =
      this.dialect === 'postgres'
        ? new PostgresDriver({ url: this.postgres.url, max: 4 })
        : new SqliteDriver({ path: join(this.dir as string, 'holdpoint.db') });
    this.drivers.push(driver);
    return driver;
  }
}
