import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HoldpointConfig } from '../src/config/config.js';
import { holdpointFromConfig } from '../src/main/holdpoint-from-config.js';
import { PostgresDriver } from '../src/store/postgres/postgres-driver.js';
import type { SqlDriver } from '../src/store/sql/sql-driver.js';
import { SqlStore } from '../src/store/sql/sql-store.js';
import { SqliteDriver } from '../src/store/sqlite/sqlite-driver.js';
import { SQLITE_FILE_NAME } from '../src/store/sqlite/sqlite-store-options.js';
import { CountingDriver } from './counting-driver.js';
import { APP, QUERY, resumeApproved, startPaused } from './holdpoint-cycles.js';
import type { PostgresTarget } from './postgres-target.js';
import {
  INBOX_USER,
  type ScaleLevelRuntime,
  type ScaleStore,
  SESSIONS_PER_OWNER,
  type SeedFigures,
  TEMPLATE_USER,
} from './scale.js';
import { benchConfig, type StoreChoice } from './scenarios.js';
import { seedPausedSql } from './seed-paused-sql.js';
import { checkPlans, type PlanCheck } from './sql-plans.js';
import type { SqliteTarget } from './sqlite-target.js';

/** Copies per transaction while seeding. */
const SEED_BATCH = 1_000;
/** A page as the runtime's lists ask for one. */
const PAGE = 50;

/** A level on a SQL database of its own, its store's statements counted. */
interface SqlLevel extends ScaleLevelRuntime {
  store: SqlStore;
  driver: CountingDriver;
}

/** A SQL store for `config` on `driver`, counted. */
async function openSqlLevel(config: HoldpointConfig, driver: SqlDriver): Promise<SqlLevel> {
  const counting = new CountingDriver(driver);
  const store = new SqlStore(counting, {
    sessionTtlSeconds: config.sessionTtlSeconds,
    migrate: true,
  });
  const { runtime } = await holdpointFromConfig(config, { store });
  return { runtime, store, driver: counting, sweepIntervalSeconds: config.sweepIntervalSeconds };
}

/**
 * The plans of the store's lists and lookups at `level` (full of paused sessions), each
 * read from the statements the store call sent: listPaused (all, and for audiences),
 * listDuePauses, listDueSla, listInterrupted, listUserSessions, findApproval; then every
 * statement of one inbox read and of one pause and one resume.
 */
async function listPlans(level: SqlLevel): Promise<PlanCheck[]> {
  const { store, driver, runtime } = level;
  const now = Date.now();
  const calls: [string, () => Promise<unknown>][] = [
    ['listPaused (all)', () => store.listPaused({ limit: PAGE }, now)],
    [
      'listPaused (audiences)',
      () => store.listPaused({ audiences: ['user:owner-7', 'role:approver'], limit: PAGE }, now),
    ],
    ['listDuePauses', () => store.listDuePauses(now, PAGE)],
    ['listDueSla', () => store.listDueSla(now, PAGE)],
    ['listInterrupted', () => store.listInterrupted({ limit: PAGE }, now)],
    ['listUserSessions', () => store.listUserSessions('owner-7', { limit: PAGE }, now)],
    ['findApproval', () => store.findApproval('seed-a-70-0')],
    [
      'inbox read (listPendingApprovals)',
      () => runtime.operations.listApprovals({}, { id: INBOX_USER, roles: [] }),
    ],
  ];
  const checks: PlanCheck[] = [];
  for (const [call, run] of calls) {
    checks.push(await checkPlans(driver, driver.dialect, call, await driver.statementsOf(run)));
  }
  let sessionId = '';
  const start = await driver.statementsOf(async () => {
    sessionId = await startPaused(runtime.operations, 'plan-user');
  });
  checks.push(await checkPlans(driver, driver.dialect, 'start (to a pause)', start));
  const resume = await driver.statementsOf(() =>
    resumeApproved(runtime.operations, sessionId, 'plan-user'),
  );
  checks.push(await checkPlans(driver, driver.dialect, 'resume', resume));
  return checks;
}

/** The SQL store's part of the scale figures; `fresh` makes a level's database. */
function sqlScaleStore(
  name: string,
  fresh: () => Promise<{ choice: StoreChoice; driver: (config: HoldpointConfig) => SqlDriver }>,
  afterSeed: (level: SqlLevel) => Promise<void>,
  bytesMeasure: string,
): ScaleStore<SqlLevel> {
  const pausedIn = async (level: SqlLevel) => (await level.store.stats()).paused;
  return {
    name,
    idleUnit: 'SQL statements/s',
    async openStore() {
      const { choice, driver } = await fresh();
      const config = benchConfig(choice);
      return openSqlLevel(config, driver(config));
    },
    async seed(level, total): Promise<SeedFigures> {
      const outcome = await level.runtime.operations.startRun(
        { query: QUERY, app: APP },
        { id: TEMPLATE_USER, roles: [] },
      );
      if (outcome.status !== 'pending_approval') {
        throw new Error(`the template run ended ${outcome.status}, expected pending_approval`);
      }
      const sessions = Math.max(0, total - (await pausedIn(level)));
      const bytes = (await level.driver.databaseBytes()) ?? 0;
      const started = performance.now();
      await seedPausedSql(level.driver, outcome.sessionId, {
        count: sessions,
        batch: SEED_BATCH,
        sessionsPerOwner: SESSIONS_PER_OWNER,
        ownerPrefix: 'owner',
      });
      await afterSeed(level);
      const seconds = (performance.now() - started) / 1000;
      const bytesAfter = (await level.driver.databaseBytes()) ?? 0;
      return {
        sessions,
        seconds,
        method: `copies of one paused session's rows (INSERT … SELECT, ${SEED_BATCH} per transaction)`,
        sessionsPerOwner: SESSIONS_PER_OWNER,
        bytesPerSession: (bytesAfter - bytes) / sessions,
        bytesMeasure,
      };
    },
    settle: async () => {},
    pausedIn,
    async ratePerSecond(level, ms) {
      const before = level.driver.statements;
      const started = performance.now();
      await sleep(ms);
      return ((level.driver.statements - before) * 1000) / (performance.now() - started);
    },
    plans: listPlans,
  };
}

/**
 * SQLite in the bench's temporary directory, a database file per level. Nothing is
 * analyzed after seeding: the store never runs ANALYZE, so its plans are SQLite's
 * defaults.
 */
export function sqliteScaleStore(sqlite: SqliteTarget): ScaleStore<SqlLevel> {
  return sqlScaleStore(
    'SQLite',
    async () => {
      const dataDir = sqlite.newDataDir();
      return {
        choice: { store: 'sqlite', dataDir },
        driver: (config) =>
          new SqliteDriver({
            path: join(dataDir, SQLITE_FILE_NAME),
            synchronous: config.sqliteSynchronous,
          }),
      };
    },
    async () => {},
    'page_count × page_size growth / sessions',
  );
}

/**
 * PostgreSQL in a database of the bench's own per level (dropped with the target).
 * After seeding the tables are analyzed, as autovacuum would within a minute of so many
 * inserts, so the plans are the ones a running server gets.
 */
export function postgresScaleStore(postgres: PostgresTarget): ScaleStore<SqlLevel> {
  return sqlScaleStore(
    'PostgreSQL',
    async () => {
      const url = await postgres.newDatabase();
      return {
        choice: { store: 'postgres', url },
        driver: (config) => new PostgresDriver({ url, max: config.postgresMaxConnections }),
      };
    },
    async (level) => {
      await level.driver.query('ANALYZE');
    },
    'pg_total_relation_size of the hp_ tables, growth / sessions',
  );
}
