import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { RedisScratch, TEST_REDIS_URL } from '../../src/store/redis/redis-scratch.test-support.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { HoldpointStore } from '../../src/store/store.js';

/** The stores tests run on. */
export const STORE_KINDS = ['memory', 'redis'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/**
 * Test support: two server instances' handles on one store — the same memory store
 * twice, or two Redis connections under a scratch prefix of their own. Call `close`
 * after each test and `cleanup` after the file.
 */
export class TwoInstances {
  private readonly scratch = new RedisScratch();
  private readonly opened: RedisStore[] = [];

  open(kind: StoreKind): [HoldpointStore, HoldpointStore] {
    if (kind === 'memory') {
      const store = new MemoryStore({ sessionTtlSeconds: 600 });
      return [store, store];
    }
    const make = () => {
      const store = new RedisStore({
        url: TEST_REDIS_URL,
        keyPrefix: this.scratch.prefix,
        sessionTtlSeconds: 600,
      });
      this.opened.push(store);
      return store;
    };
    return [make(), make()];
  }

  async close(): Promise<void> {
    await Promise.all(this.opened.splice(0).map((store) => store.close()));
  }

  cleanup(): Promise<void> {
    return this.scratch.cleanup();
  }
}
