import type { StoreKind } from '../core/store-kinds.js';
import { validate } from '../core/validate.js';
import { MemoryStore } from '../store/memory/memory-store.js';
import {
  type MemoryStoreOptions,
  memoryStoreOptions,
} from '../store/memory/memory-store-options.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
import {
  type PostgresStoreOptions,
  postgresStoreOptions,
} from '../store/postgres/postgres-store-options.js';
import { RedisStore } from '../store/redis/redis-store.js';
import { type RedisStoreOptions, redisStoreOptions } from '../store/redis/redis-store-options.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import {
  type SqliteStoreOptions,
  sqliteStoreOptions,
} from '../store/sqlite/sqlite-store-options.js';
import type { HoldpointStore } from '../store/store.js';

export type { MemoryStoreOptions, PostgresStoreOptions, RedisStoreOptions, SqliteStoreOptions };

/**
 * Where Holdpoint keeps sessions, pauses, decisions, audit and effect results. Opaque:
 * hand it to `createHoldpoint`; every change goes through the Holdpoint, validated
 * and audited.
 */
export interface Store {
  readonly kind: StoreKind;
  /** Releases connections (or the database file); `Holdpoint.close()` calls it. */
  close(): Promise<void>;
}

/** The store behind a `Store` made by `memoryStore`, `sqliteStore`, `postgresStore` or `redisStore`. */
export function internalStore(store: Store): HoldpointStore {
  return store as HoldpointStore;
}

/**
 * The embedded store: everything in this process, nothing survives a restart. For
 * tests and single-process tools; `sqliteStore` keeps runs on one machine,
 * `postgresStore` and `redisStore` across instances.
 */
export function memoryStore(options: MemoryStoreOptions = {}): Store {
  return new MemoryStore(validate(memoryStoreOptions, options));
}

/**
 * One machine's durable store: a SQLite database (`<dataDir>/holdpoint.db`, or `path`)
 * in WAL mode, nothing to install. A paused run survives the process being killed; with
 * `synchronous: 'full'` a power loss too. One process at a time serves it.
 */
export function sqliteStore(options: SqliteStoreOptions): Store {
  return new SqliteStore(validate(sqliteStoreOptions, options));
}

/**
 * The store for teams that run PostgreSQL: any number of instances on one database
 * (`url`, or your `pg.Pool`), transitions in transactions, waiting streams woken on
 * every instance (LISTEN/NOTIFY). Its schema is checked (and, unless `migrate: false`,
 * migrated) on first use.
 */
export function postgresStore(options: PostgresStoreOptions): Store {
  validate(postgresStoreOptions, options);
  return new PostgresStore(options);
}

/**
 * The Redis store: any instance resumes any pause, transitions are atomic
 * (Lua, one hash tag per session), and every key has a TTL.
 */
export function redisStore(options: RedisStoreOptions): Store {
  validate(redisStoreOptions, options);
  return new RedisStore(options);
}
