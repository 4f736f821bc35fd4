import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { MemoryStore } from './memory/memory-store.js';
import { PostgresScratch, scratchPool } from './postgres/postgres-scratch.test-support.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { RedisScratch, TEST_REDIS_URL } from './redis/redis-scratch.test-support.js';
import { RedisStore } from './redis/redis-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { HoldpointStore } from './store.js';

/**
 * Test support: the stores a test file runs its scenarios on — a fresh MemoryStore, or a
 * handle on the file's own shared data: a RedisStore under a scratch prefix, a
 * SqliteStore on a database in a temporary directory, a PostgresStore on a scratch
 * database — and the closing of every handle it opened, then the removal of that data.
 */
export class TestStores {
  readonly scratch = new RedisScratch();
  readonly postgres = new PostgresScratch();
  readonly #opened: HoldpointStore[] = [];
  readonly #pools: pg.Pool[] = [];
  #dataDir?: string;

  /** A new store of each kind, keyed by the name the tests' `describe.each` shows. */
  readonly byKind: Record<string, () => HoldpointStore> = {
    memory: () => this.memory(),
    redis: () => this.redis(),
    sqlite: () => this.sqlite(),
    postgres: () => this.postgresStore(),
  };

  /** A new, empty memory store. */
  memory(): MemoryStore {
    return new MemoryStore({ sessionTtlSeconds: 600 });
  }

  /** A new handle on the scratch prefix: two handles stand for two server instances. */
  redis(): RedisStore {
    return this.#keep(
      new RedisStore({
        url: TEST_REDIS_URL,
        keyPrefix: this.scratch.prefix,
        sessionTtlSeconds: 600,
      }),
    );
  }

  /** A new handle on this file's SQLite database: two handles stand for two instances on one machine. */
  sqlite(): SqliteStore {
    this.#dataDir ??= mkdtempSync(join(tmpdir(), 'hp-'));
    return this.#keep(new SqliteStore({ dataDir: this.#dataDir, sessionTtlSeconds: 600 }));
  }

  /**
   * A new handle on this file's scratch PostgreSQL database (created on first use; the
   * handle's first call waits for it): two handles stand for two server instances.
   */
  postgresStore(): PostgresStore {
    const pool = scratchPool(this.postgres);
    this.#pools.push(pool);
    return this.#keep(new PostgresStore({ pool, sessionTtlSeconds: 600 }));
  }

  #keep<T extends HoldpointStore>(store: T): T {
    this.#opened.push(store);
    return store;
  }

  /** Closes the handles opened since the last call. */
  async close(): Promise<void> {
    await Promise.all(this.#opened.splice(0).map((store) => store.close()));
    await Promise.all(this.#pools.splice(0).map((pool) => pool.end()));
  }

  /** Closes every open handle, then removes the scratch data (prefix, directory, database). */
  async cleanup(): Promise<void> {
    await this.close();
    await this.scratch.cleanup();
    if (this.#dataDir) rmSync(this.#dataDir, { recursive: true, force: true });
    await this.postgres.cleanup();
  }
}
