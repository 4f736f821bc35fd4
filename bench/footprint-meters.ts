import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { internalStore, type Store } from '../src/library/stores.js';
import { SQLITE_FILE_NAME } from '../src/store/sqlite/sqlite-store-options.js';
import type { FootprintMeter } from './paused-footprint.js';
import type { RedisInfo } from './redis-info.js';

/** The memory store's own count: the JSON of the records it keeps. */
export function memoryMeter(store: Store): FootprintMeter {
  return {
    measure: "the store's own byte count (its records as JSON)",
    async read() {
      return { bytes: (await internalStore(store).stats()).bytes ?? 0 };
    },
    async close() {},
  };
}

/**
 * The database file in `dataDir`, read after its WAL is checkpointed into it and
 * truncated, so the file holds every committed page and nothing else does.
 */
export function sqliteMeter(dataDir: string): FootprintMeter {
  const path = join(dataDir, SQLITE_FILE_NAME);
  let db: DatabaseSync | undefined;
  return {
    measure: 'database file growth, after a WAL checkpoint (TRUNCATE)',
    async read() {
      // Opened on first read: the store has made the file by then.
      db ??= new DatabaseSync(path);
      const [result] = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').all();
      if (result?.busy !== 0) throw new Error(`the WAL checkpoint of ${path} was blocked`);
      return { bytes: statSync(path).size };
    },
    async close() {
      db?.close();
    },
  };
}

/**
 * The `hp_*` tables of the database at `url`, their indexes and TOAST included
 * (`pg_total_relation_size`), read after a VACUUM (ANALYZE) so that dead row versions
 * are marked free and the statistics are current.
 */
export function postgresMeter(url: string): FootprintMeter {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return {
    measure: 'growth of the hp_* tables (pg_total_relation_size), after VACUUM (ANALYZE)',
    async read() {
      await connected;
      await client.query('VACUUM (ANALYZE)');
      const { rows } = await client.query<{ bytes: string }>(
        `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind = 'r' AND c.relname LIKE 'hp\\_%' AND n.nspname = current_schema()`,
      );
      return { bytes: Number(rows[0]?.bytes ?? 0) };
    },
    async close() {
      await connected.catch(() => undefined);
      await client.end();
    },
  };
}

/** Redis's `used_memory` and key count: only the bench's own on a Redis it has to itself. */
export function redisMeter(info: RedisInfo): FootprintMeter {
  return {
    measure: 'used_memory growth',
    async read() {
      return { bytes: await info.usedMemory(), keys: await info.keyCount() };
    },
    async close() {},
  };
}
