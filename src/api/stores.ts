import { validate } from '../core/validate.js';
import { MemoryStore } from '../store/memory/memory-store.js';
import {
  type MemoryStoreOptions,
  memoryStoreOptions,
} from '../store/memory/memory-store-options.js';
import { RedisStore } from '../store/redis/redis-store.js';
import { type RedisStoreOptions, redisStoreOptions } from '../store/redis/redis-store-options.js';
import type { HoldpointStore } from '../store/store.js';

export type { MemoryStoreOptions, RedisStoreOptions };

/**
 * Where Holdpoint keeps sessions, pauses, decisions, audit and effect results. Opaque:
 * hand it to `createHoldpoint`; every change goes through the Holdpoint, validated
 * and audited.
 */
export interface Store {
  readonly kind: 'memory' | 'redis';
  /** Releases connections; `Holdpoint.close()` calls it. */
  close(): Promise<void>;
}

/** The store behind a `Store` made by `memoryStore` or `redisStore`. */
export function internalStore(store: Store): HoldpointStore {
  return store as HoldpointStore;
}

/**
 * The embedded store: everything in this process, nothing survives a restart. For
 * development, tests and single-process tools; production uses `redisStore`.
 */
export function memoryStore(options: MemoryStoreOptions = {}): Store {
  return new MemoryStore(validate(memoryStoreOptions, options));
}

/**
 * The production store: any instance resumes any pause, transitions are atomic
 * (Lua, one hash tag per session), and every key has a TTL.
 */
export function redisStore(options: RedisStoreOptions): Store {
  validate(redisStoreOptions, options);
  return new RedisStore(options);
}
