import type { HoldpointStore } from '../../src/store/store.js';
import { TestStores } from '../../src/store/test-stores.test-support.js';

/** The stores tests run on. */
export const STORE_KINDS = ['memory', 'redis'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/**
 * Test support: two server instances' handles on one store — the same memory store
 * twice, or two Redis connections under a scratch prefix of their own. Call `close`
 * after each test and `cleanup` after the file.
 */
export class TwoInstances {
  private readonly stores = new TestStores();

  open(kind: StoreKind): [HoldpointStore, HoldpointStore] {
    if (kind === 'memory') {
      const store = this.stores.memory();
      return [store, store];
    }
    return [this.stores.redis(), this.stores.redis()];
  }

  close(): Promise<void> {
    return this.stores.close();
  }

  cleanup(): Promise<void> {
    return this.stores.cleanup();
  }
}
