import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeOf } from '../src/core/errors.test-support.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { PostgresDriver } from '../src/store/postgres/postgres-driver.js';
import { PostgresScratch } from '../src/store/postgres/postgres-scratch.test-support.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { migrateSchema, schemaVersion } from '../src/store/sql/schema/migrate.js';
import { SCHEMA_VERSION } from '../src/store/sql/schema/migrations.js';
import type { SqlDriver, SqlValue } from '../src/store/sql/sql-driver.js';
import { SqlStore } from '../src/store/sql/sql-store.js';
import { SqliteDriver } from '../src/store/sqlite/sqlite-driver.js';
import { slaApp, V1_COLUMNS } from './fixtures/sql/v1-paused.js';
import { as } from './support/principals.js';
import { runtimeOn } from './support/runtime-on.js';

// A database at schema v1 with runs paused in it (rows a real v1 store wrote, see
// fixtures/sql/write-v1-paused.ts) is migrated to v2: the waiting counts and SLA index
// are computed from the pauses, and the runs then resume and complete.

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/sql/v1-paused.json', import.meta.url), 'utf8'),
) as { now: number; tables: Record<string, Record<string, SqlValue>[]> };
const maria = as('maria', 'approver');

/** A database of each kind, empty: a driver on it and a store made on the same database. */
interface Database {
  driver: SqlDriver;
  store(options?: { migrate?: boolean }): SqlStore;
  cleanup(): Promise<void>;
}

const kinds: Record<string, () => Promise<Database>> = {
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-'));
    const path = join(dir, 'holdpoint.db');
    const stores: SqlStore[] = [];
    const driver = new SqliteDriver({ path });
    return {
      driver,
      store: (options) => {
        const store = new SqlStore(new SqliteDriver({ path }), options);
        stores.push(store);
        return store;
      },
      cleanup: async () => {
        await Promise.all([driver.close(), ...stores.map((s) => s.close())]);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  postgres: async () => {
    const scratch = new PostgresScratch();
    await scratch.ready();
    const stores: SqlStore[] = [];
    const driver = new PostgresDriver({ url: scratch.url });
    return {
      driver,
      store: (options) => {
        const store = new PostgresStore({ url: scratch.url, ...options });
        stores.push(store);
        return store;
      },
      cleanup: async () => {
        await Promise.all([driver.close(), ...stores.map((s) => s.close())]);
        await scratch.cleanup();
      },
    };
  },
};

/** Loads the fixture's rows into a database at v1; its sessions live on from now. */
async function loadV1(driver: SqlDriver): Promise<void> {
  await driver.transaction(async (tx) => {
    for (const [table, columns] of Object.entries(V1_COLUMNS)) {
      for (const row of fixture.tables[table] ?? []) {
        const values = columns.map((column) => row[column] ?? null);
        const marks = columns.map((_, i) => `$${i + 1}`).join(', ');
        await tx.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${marks})`, values);
      }
    }
    await tx.query('UPDATE hp_sessions SET expires_at = $1', [Date.now() + 600_000]);
  });
}

describe.each(Object.keys(kinds))('schema migration (%s)', (kind) => {
  const open = kinds[kind] as () => Promise<Database>;
  const opened: Database[] = [];
  afterAll(() => Promise.all(opened.map((db) => db.cleanup())));
  async function database() {
    const db = await open();
    opened.push(db);
    return db;
  }

  it('migrates paused runs from v1 to v2, counting and scheduling them, and they resume', async () => {
    const db = await database();
    expect((await migrateSchema(db.driver, { to: 1 })).applied.map((m) => m.version)).toEqual([1]);
    await loadV1(db.driver);

    // At v1, a store that may not migrate refuses to start, saying what to run.
    const refusing = db.store({ migrate: false });
    const refused = refusing.ping();
    expect(await codeOf(refused)).toBe('SCHEMA_OUTDATED');
    await expect(refused).rejects.toThrow(/holdpoint db migrate/);

    const report = await migrateSchema(db.driver);
    expect(report).toMatchObject({ from: 1, to: SCHEMA_VERSION });
    expect(report.applied.map((m) => m.version)).toEqual([2, 3, 4]);
    await refusing.ping();

    const store = db.store();
    expect(await store.countWaiting()).toEqual([{ app: 'sla', tool: 'always_confirm', count: 2 }]);
    const sessions = fixture.tables.hp_sessions?.map((row) => String(row.session_id)) ?? [];
    // The reminder, 60 s after each approval was asked, is due from then on.
    expect(await store.listDueSla(fixture.now + 59_000, 10)).toEqual([]);
    expect((await store.listDueSla(fixture.now + 60_000, 10)).sort()).toEqual([...sessions].sort());

    const clock = new ManualClock(fixture.now);
    clock.advance(1000);
    const runtime = runtimeOn(store, slaApp(), clock);
    const inbox = await runtime.operations.listApprovals({}, maria);
    expect(inbox.approvals).toHaveLength(2);
    for (const { approvalId } of inbox.approvals) {
      const done = await runtime.operations.decideApproval({ approvalId, approved: true }, maria);
      expect(done.status).toBe('completed');
    }
    expect(await store.countWaiting()).toEqual([{ app: 'sla', tool: 'always_confirm', count: 0 }]);
    expect(await store.listDueSla(fixture.now + 3_600_000, 10)).toEqual([]);
  });

  it('refuses a database newer than it knows', async () => {
    const db = await database();
    await migrateSchema(db.driver);
    await db.driver.query('UPDATE hp_schema SET version = $1', [SCHEMA_VERSION + 1]);
    expect(await codeOf(db.store().ping())).toBe('SCHEMA_TOO_NEW');
    expect(await codeOf(migrateSchema(db.driver))).toBe('SCHEMA_TOO_NEW');
    expect(await schemaVersion(db.driver)).toBe(SCHEMA_VERSION + 1);
  });

  it('migrates an empty database once when two instances start on it at once', async () => {
    const db = await database();
    const reports = await Promise.all([migrateSchema(db.driver), migrateSchema(db.driver)]);
    const applied = reports.flatMap((r) => r.applied.map((m) => m.version)).sort();
    expect(applied).toEqual([1, 2, 3, 4]);
    expect(await schemaVersion(db.driver)).toBe(SCHEMA_VERSION);

    // Two stores starting at once on another empty database: both start, on one schema.
    const empty = await database();
    await Promise.all([empty.store().ping(), empty.store().ping()]);
    expect(await schemaVersion(empty.driver)).toBe(SCHEMA_VERSION);
    const { rows } = await empty.driver.query('SELECT COUNT(*) AS n FROM hp_schema');
    expect(Number(rows[0]?.n)).toBe(1);
  });
});
