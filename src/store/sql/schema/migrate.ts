import { HoldpointError } from '../../../core/errors.js';
import type { SqlDriver, SqlQueries } from '../sql-driver.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';

/** One step `migrateSchema` applied. */
export interface AppliedMigration {
  version: number;
  name: string;
}

/** What `migrateSchema` did: the version it found, the one it left, the steps between. */
export interface MigrationReport {
  from: number;
  to: number;
  applied: AppliedMigration[];
}

const CREATE_SCHEMA_TABLE = `CREATE TABLE IF NOT EXISTS hp_schema (
  id INTEGER PRIMARY KEY,
  version INTEGER NOT NULL,
  migrated_at BIGINT NOT NULL
)`;

/** Whether the database has the schema table yet (read without creating it). */
async function hasSchemaTable(queries: SqlQueries, dialect: SqlDriver['dialect']) {
  const { rows } =
    dialect === 'sqlite'
      ? await queries.query(
          "SELECT COUNT(*) AS found FROM sqlite_master WHERE type = 'table' AND name = 'hp_schema'",
        )
      : await queries.query(
          "SELECT COUNT(*) AS found FROM pg_tables WHERE tablename = 'hp_schema' AND schemaname = current_schema()",
        );
  return Number(rows[0]?.found ?? 0) > 0;
}

async function readVersion(queries: SqlQueries, dialect: SqlDriver['dialect']): Promise<number> {
  if (!(await hasSchemaTable(queries, dialect))) return 0;
  const { rows } = await queries.query('SELECT version FROM hp_schema WHERE id = 1');
  return Number(rows[0]?.version ?? 0);
}

/** The schema version of the database: 0 when it holds no Holdpoint schema yet. */
export function schemaVersion(driver: SqlDriver): Promise<number> {
  return readVersion(driver, driver.dialect);
}

function tooNew(version: number): HoldpointError {
  return new HoldpointError(
    'SCHEMA_TOO_NEW',
    `The database has schema version ${version}, newer than this release of Holdpoint knows ` +
      `(${SCHEMA_VERSION}); run a release that knows it.`,
    { schema_version: version, known_version: SCHEMA_VERSION },
  );
}

/**
 * Migrates the database forward to `to` (default: the version this code runs on), one
 * step per transaction under the schema lock; each step reads the version again under
 * the lock, so instances migrating at once apply each step once (the others skip it).
 * SCHEMA_TOO_NEW when the database is newer than this code; VALIDATION_FAILED when `to` is.
 */
export async function migrateSchema(
  driver: SqlDriver,
  { to = SCHEMA_VERSION }: { to?: number } = {},
): Promise<MigrationReport> {
  // Past what this release knows there is nothing to migrate to: saying "nothing to
  // migrate" would let an operator believe the database reached the version asked for.
  if (to > SCHEMA_VERSION) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `This release of Holdpoint knows schema versions up to ${SCHEMA_VERSION}; it cannot migrate to ${to}.`,
      { known_version: SCHEMA_VERSION },
    );
  }
  const from = await schemaVersion(driver);
  if (from > SCHEMA_VERSION) throw tooNew(from);
  const applied: AppliedMigration[] = [];
  for (const migration of MIGRATIONS) {
    if (migration.version <= from || migration.version > to) continue;
    const ran = await driver.schemaTransaction(async (tx) => {
      await tx.query(CREATE_SCHEMA_TABLE);
      const current = await readVersion(tx, driver.dialect);
      if (current >= migration.version) return false;
      await migration.up(tx, driver.dialect);
      await tx.query(
        `INSERT INTO hp_schema (id, version, migrated_at) VALUES (1, $1, $2)
         ON CONFLICT (id) DO UPDATE SET version = excluded.version, migrated_at = excluded.migrated_at`,
        [migration.version, Date.now()],
      );
      return true;
    });
    if (ran) applied.push({ version: migration.version, name: migration.name });
  }
  return { from, to: await schemaVersion(driver), applied };
}

/**
 * Makes sure the database runs on this code's schema before the store uses it: a newer
 * one is refused (SCHEMA_TOO_NEW); an older (or empty) one is migrated, or with
 * `migrate: false` refused (SCHEMA_OUTDATED) until `holdpoint db migrate` runs.
 */
export async function ensureSchema(
  driver: SqlDriver,
  { migrate = true }: { migrate?: boolean } = {},
): Promise<void> {
  const version = await schemaVersion(driver);
  if (version === SCHEMA_VERSION) return;
  if (version > SCHEMA_VERSION) throw tooNew(version);
  if (!migrate) {
    throw new HoldpointError(
      'SCHEMA_OUTDATED',
      `The database has schema version ${version} and this release runs on ${SCHEMA_VERSION}; ` +
        'run `holdpoint db migrate` (or allow migrations at start).',
      { schema_version: version, known_version: SCHEMA_VERSION },
    );
  }
  await migrateSchema(driver);
}
