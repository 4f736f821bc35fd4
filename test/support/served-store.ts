import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OwnPostgres } from './own-postgres.js';
import { type AppendFsync, TestRedis } from './redis-server.js';

/** The durable stores a `holdpoint serve` process runs on in these tests. */
export const SERVED_STORE_KINDS = ['redis', 'postgres', 'sqlite'] as const;
export type ServedStoreKind = (typeof SERVED_STORE_KINDS)[number];

/**
 * Test support: a store of the test's own for real `holdpoint serve` processes, with the
 * flags that name it. Redis and PostgreSQL are servers of the test's own (never the
 * shared ones), so `down` can kill them and `up` start them again on the same data; an
 * SQLite store is a data directory, inside the Holdpoint process: it has no server to
 * kill (`canGoDown` is false).
 */
export interface ServedStore {
  readonly kind: ServedStoreKind;
  /** The `serve` (and `resume`) flags that put a process on this store. */
  readonly args: string[];
  readonly canGoDown: boolean;
  /** Stops the database server: SIGTERM (clean) or SIGKILL (a crash). */
  down(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts the database server again on the same data. */
  up(): Promise<void>;
  /** Stops everything and removes the data. */
  stop(): Promise<void>;
}

/** Starts a store of `kind` for the test file. `appendFsync` is Redis's durability setting. */
export async function startServedStore(
  kind: ServedStoreKind,
  appendFsync: AppendFsync = 'always',
): Promise<ServedStore> {
  if (kind === 'redis') {
    const redis = await TestRedis.start(appendFsync);
    return {
      kind,
      args: ['--store', 'redis', '--redis-url', redis.url],
      canGoDown: true,
      down: (signal = 'SIGTERM') => redis.down(signal),
      up: () => redis.up(),
      stop: () => redis.stop(),
    };
  }
  if (kind === 'postgres') {
    const postgres = await OwnPostgres.start();
    return {
      kind,
      args: ['--store', 'postgres', '--postgres-url', postgres.url],
      canGoDown: true,
      down: (signal = 'SIGTERM') => (signal === 'SIGKILL' ? postgres.kill() : postgres.stop()),
      up: () => postgres.start(),
      stop: () => postgres.cleanup(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'hp-served-'));
  const embedded = () => Promise.reject(new Error('SQLite has no server to stop or start'));
  return {
    kind,
    args: ['--store', 'sqlite', '--data-dir', dir],
    canGoDown: false,
    down: embedded,
    up: embedded,
    stop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
