import type { Redis } from 'ioredis';
import { z } from 'zod';
import { DEFAULTS } from '../core/defaults.js';
import { positiveNumber, redisKeyPrefix, validate } from '../core/validate.js';
import { MemoryStore } from '../store/memory/memory-store.js';
import { RedisStore } from '../store/redis/redis-store.js';
import type { HoldpointStore } from '../store/store.js';

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

const memoryStoreOptions = z.strictObject({
  sessionTtlSeconds: positiveNumber.optional(),
  maxSessions: z.number().int().positive().optional(),
  maxMb: positiveNumber.optional(),
});

const redisStoreOptions = z
  .strictObject({
    url: z
      .string()
      .regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL')
      .optional(),
    client: z
      .custom<Redis>(
        (value) => typeof (value as Redis | undefined)?.duplicate === 'function',
        'an ioredis client (new Redis(...))',
      )
      .optional(),
    keyPrefix: redisKeyPrefix.optional(),
    sessionTtlSeconds: positiveNumber.optional(),
  })
  .refine((o) => (o.url === undefined) !== (o.client === undefined), {
    message: 'give exactly one of url or client',
  });

/** Settings of the embedded store. */
export interface MemoryStoreOptions {
  /** A session is forgotten this long after its last change. Default 7 days. */
  sessionTtlSeconds?: number;
  /** At most this many sessions; the least recently changed idle ones make room. Default 10,000. */
  maxSessions?: number;
  /** At most about this many megabytes of sessions. Default 256. */
  maxMb?: number;
}

/**
 * The embedded store: everything in this process, nothing survives a restart. For
 * development, tests and single-process tools; production uses `redisStore`.
 */
export function memoryStore(options: MemoryStoreOptions = {}): Store {
  validate(memoryStoreOptions, options);
  return new MemoryStore({
    sessionTtlSeconds: options.sessionTtlSeconds ?? DEFAULTS.sessionTtlSeconds,
    maxSessions: options.maxSessions,
    maxBytes: options.maxMb === undefined ? undefined : options.maxMb * 1024 * 1024,
  });
}

/** Settings of the Redis store: a `url`, or an existing ioredis `client`. */
export interface RedisStoreOptions {
  /** e.g. `redis://127.0.0.1:6379/0`. */
  url?: string;
  /**
   * An existing ioredis client (not a Cluster): the store opens connections of its own
   * with the client's settings, and never reconfigures or closes yours.
   */
  client?: Redis;
  /** Prefix of every key, so deployments can share one Redis. Default `hp`. */
  keyPrefix?: string;
  /** A session's keys expire this long after its last change. Default 7 days. */
  sessionTtlSeconds?: number;
}

/**
 * The production store: any instance resumes any pause, transitions are atomic
 * (Lua, one hash tag per session), and every key has a TTL.
 */
export function redisStore(options: RedisStoreOptions): Store {
  validate(redisStoreOptions, options);
  return new RedisStore({
    url: options.url,
    client: options.client,
    keyPrefix: options.keyPrefix,
    sessionTtlSeconds: options.sessionTtlSeconds ?? DEFAULTS.sessionTtlSeconds,
  });
}
