import { MemoryStore } from './memory/memory-store.js';
import { RedisScratch, TEST_REDIS_URL } from './redis/redis-scratch.test-support.js';
import { RedisStore } from './redis/redis-store.js';
import type { HoldpointStore } from './store.js';

/**
 * Test support: the stores a test file runs its scenarios on — a fresh MemoryStore, or a
 * RedisStore handle on the test Redis under the file's own scratch prefix — and the
 * closing of every Redis handle it opened.
 */
export class TestStores {
  readonly scratch = new RedisScratch();
  readonly #opened: RedisStore[] = [];

  /** A new store of each kind, keyed by the name the tests' `describe.each` shows. */
  readonly byKind: Record<string, () => HoldpointStore> = {
    memory: () => this.memory(),
    redis: () => this.redis(),
  };

  /** A new, empty memory store. */
  memory(): MemoryStore {
    return new MemoryStore({ sessionTtlSeconds: 600 });
  }

  /** A new handle on the scratch prefix: two handles stand for two server instances. */
  redis(): RedisStore {
    const store = new RedisStore({
      url: TEST_REDIS_URL,
      keyPrefix: this.scratch.prefix,
      sessionTtlSeconds: 600,
    });
    this.#opened.push(store);
    return store;
  }

  /** Closes the Redis handles opened since the last call. */
  async close(): Promise<void> {
    await Promise.all(this.#opened.splice(0).map((store) => store.close()));
  }

  /** Closes every open handle, then removes the scratch prefix's keys. */
  async cleanup(): Promise<void> {
    await this.close();
    await this.scratch.cleanup();
  }
}
