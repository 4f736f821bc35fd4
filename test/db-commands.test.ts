import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  PostgresScratch,
  TEST_POSTGRES_URL,
  withDatabase,
} from '../src/store/postgres/postgres-scratch.test-support.js';
import { migrateSchema, schemaVersion } from '../src/store/sql/schema/migrate.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../src/store/sql/schema/migrations.js';
import { SqliteDriver } from '../src/store/sqlite/sqlite-driver.js';
import { type Ended, runToEnd } from './support/run-to-end.js';
import { ServerProcess } from './support/server-process.js';

// What an operator meets: `holdpoint serve` refuses a database it cannot use before it
// listens, saying why and what to run; `holdpoint db migrate` brings the schema up to
// date and says what it did; `holdpoint db stats` prints what the store holds.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const BIN = fileURLToPath(new URL('../bin/holdpoint.js', import.meta.url));
const APP = fileURLToPath(new URL('../examples/payments/app.ts', import.meta.url));
const dirs: string[] = [];
const scratch = new PostgresScratch();
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await scratch.cleanup();
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hp-'));
  dirs.push(dir);
  return dir;
}

/** A SQLite database in `dir` at schema `version` (a future one: just its version row). */
async function databaseAt(dir: string, version: number): Promise<void> {
  const driver = new SqliteDriver({ path: join(dir, 'holdpoint.db') });
  try {
    await migrateSchema(driver, { to: Math.min(version, SCHEMA_VERSION) });
    if (version > SCHEMA_VERSION) {
      await driver.query('UPDATE hp_schema SET version = $1 WHERE id = 1', [version]);
    }
  } finally {
    await driver.close();
  }
}

/** `holdpoint <args>` to its end: its exit code and everything it printed. */
function holdpoint(args: string[]): Promise<Ended> {
  return runToEnd(process.execPath, [BIN, ...args], { env: { LOG_LEVEL: 'info' } });
}

const serve = (...args: string[]) => holdpoint(['serve', '--port', '0', '--app', APP, ...args]);

describe('holdpoint serve on a database it cannot use', () => {
  it('stops before listening on a schema newer than it knows, naming the data directory', async () => {
    const dir = dataDir();
    await databaseAt(dir, SCHEMA_VERSION + 1);
    const { code, output } = await serve('--data-dir', dir);
    expect(code).toBe(1);
    expect(output).toContain(`Store: sqlite, data directory ${dir}`);
    expect(output).toContain(`holdpoint: SCHEMA_TOO_NEW: The sqlite store (data directory ${dir})`);
    expect(output).not.toContain('Holdpoint listening');
    expect(output).not.toContain('Usage:');
  });

  it('with --migrate never, stops on an older schema and says to run holdpoint db migrate', async () => {
    const dir = dataDir();
    await databaseAt(dir, 1);
    const { code, output } = await serve('--data-dir', dir, '--migrate', 'never');
    expect(code).toBe(1);
    expect(output).toMatch(/SCHEMA_OUTDATED: .*holdpoint db migrate/);
    expect(output).not.toContain('Holdpoint listening');
  });

  it('listens when PostgreSQL cannot be reached yet, answering 503 and saying why without the password', async () => {
    const server = await ServerProcess.start([
      '--app',
      APP,
      '--store',
      'postgres',
      '--postgres-url',
      'postgres://holdpoint:secret@127.0.0.1:1/holdpoint',
    ]);
    try {
      const logs = server.logs.join('');
      expect(logs).toContain(
        'The postgres store (database postgres://127.0.0.1:1/holdpoint) cannot be reached yet',
      );
      expect(logs).not.toContain('secret');
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'unavailable', store: 'postgres' });
    } finally {
      await server.kill();
    }
  });
});

describe('holdpoint on a store it cannot open', () => {
  it('serve and db stats name a data directory that is a file, without the usage', async () => {
    const file = join(dataDir(), 'not-a-directory');
    writeFileSync(file, 'a file');
    for (const run of [serve('--data-dir', file), holdpoint(['db', 'stats', '--data-dir', file])]) {
      const { code, output } = await run;
      expect(code).toBe(1);
      expect(output).toContain(
        `holdpoint: STORE_UNAVAILABLE: The SQLite database ${join(file, 'holdpoint.db')} cannot be opened`,
      );
      expect(output).not.toContain('Usage:');
    }
  });

  it('a PostgreSQL database that does not exist: db stats says so, serve answers 503, not 500', async () => {
    const url = withDatabase(TEST_POSTGRES_URL, 'hp_test_never_created');
    const stats = await holdpoint(['db', 'stats', '--store', 'postgres', '--postgres-url', url]);
    expect(stats.code).toBe(1);
    expect(stats.output).toContain('holdpoint: STORE_UNAVAILABLE: ');
    expect(stats.output).toContain('"hp_test_never_created" does not exist');
    expect(stats.output).not.toContain('Usage:');
    const server = await ServerProcess.start([
      '--app',
      APP,
      '--store',
      'postgres',
      '--postgres-url',
      url,
    ]);
    try {
      const started = await fetch(`${server.url}/api/agent/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-holdpoint-user': 'ann' },
        body: JSON.stringify({ query: 'Send $200 to Jiro' }),
      });
      expect(started.status).toBe(503);
      expect(await started.json()).toMatchObject({ error: { code: 'STORE_UNAVAILABLE' } });
    } finally {
      await server.kill();
    }
  });
});

describe('holdpoint db migrate', () => {
  it('refuses a --to past the versions this release knows', async () => {
    const dir = dataDir();
    const { code, output } = await holdpoint([
      'db',
      'migrate',
      '--to',
      String(SCHEMA_VERSION + 1),
      '--data-dir',
      dir,
    ]);
    expect(code).toBe(1);
    expect(output).toContain(
      `VALIDATION_FAILED: This release of Holdpoint knows schema versions up to ${SCHEMA_VERSION}`,
    );
  });

  it('migrates an older SQLite database step by step, then has nothing to do', async () => {
    const dir = dataDir();
    await databaseAt(dir, 1);
    const first = await holdpoint(['db', 'migrate', '--data-dir', dir]);
    expect(first.code, first.output).toBe(0);
    const steps = MIGRATIONS.filter((m) => m.version > 1).map((m) => `  ${m.version}: ${m.name}`);
    expect(first.output).toBe(
      [
        `The sqlite store (data directory ${dir}): migrating the schema from version 1 to ${SCHEMA_VERSION}.`,
        ...steps,
        `Done: schema version ${SCHEMA_VERSION}.`,
        '',
      ].join('\n'),
    );
    const again = await holdpoint(['db', 'migrate', '--data-dir', dir]);
    expect(again.output).toBe(
      `The sqlite store (data directory ${dir}) is at schema version ${SCHEMA_VERSION}: nothing to migrate.\n`,
    );
    // Migrated, it serves with --migrate never.
    const server = await ServerProcess.start([
      '--app',
      APP,
      '--data-dir',
      dir,
      '--migrate',
      'never',
    ]);
    await server.kill();
  });

  it('creates the schema of an empty PostgreSQL database', async () => {
    await scratch.ready();
    const url = scratch.url;
    const { code, output } = await holdpoint([
      'db',
      'migrate',
      '--store',
      'postgres',
      '--postgres-url',
      url,
    ]);
    expect(code, output).toBe(0);
    expect(output).toContain(`migrating the schema from version 0 to ${SCHEMA_VERSION}.`);
    for (const migration of MIGRATIONS) {
      expect(output).toContain(`  ${migration.version}: ${migration.name}`);
    }
  });

  it('says the memory and Redis stores have no schema', async () => {
    for (const store of ['memory', 'redis']) {
      const { code, output } = await holdpoint(['db', 'migrate', '--store', store]);
      expect(code).toBe(0);
      expect(output).toContain(`The ${store} store (`);
      expect(output).toContain('has no schema to migrate');
    }
  });
});

describe('holdpoint db stats', () => {
  it("prints the SQLite store's statistics as GET /api/store answers them", async () => {
    const dir = dataDir();
    await databaseAt(dir, SCHEMA_VERSION);
    const { code, output } = await holdpoint(['db', 'stats', '--data-dir', dir]);
    expect(code, output).toBe(0);
    const stats = JSON.parse(output);
    expect(stats).toMatchObject({
      kind: 'sqlite',
      schema_version: SCHEMA_VERSION,
      sessions: 0,
      paused: 0,
      running: 0,
    });
    expect(stats.bytes).toBeGreaterThan(0);
    const driver = new SqliteDriver({ path: join(dir, 'holdpoint.db') });
    expect(await schemaVersion(driver)).toBe(SCHEMA_VERSION);
    await driver.close();
  });
});
