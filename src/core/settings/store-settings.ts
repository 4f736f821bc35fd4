import { z } from 'zod';
import { redisKeyPrefix } from '../validate.js';
import { setting } from './setting.js';

const positiveInt = z.number().int().positive();

/** Where sessions are kept, and for how long. */
export const STORE_SETTINGS = {
  store: setting({
    schema: z.enum(['memory', 'redis']),
    default: 'memory',
    flag: 'store',
    env: 'HOLDPOINT_STORE',
    placeholder: 'memory|redis',
    doc: '`memory` (embedded, this process only) or `redis`',
  }),
  redisUrl: setting({
    schema: z.string().url(),
    default: 'redis://127.0.0.1:6379',
    flag: 'redis-url',
    env: 'REDIS_URL',
    placeholder: 'URL',
    doc: 'Redis connection URL',
  }),
  redisPrefix: setting({
    schema: redisKeyPrefix,
    default: 'hp',
    flag: 'redis-prefix',
    env: 'HOLDPOINT_REDIS_PREFIX',
    placeholder: 'PREFIX',
    doc: 'prefix of every Redis key',
  }),
  sessionTtlSeconds: setting({
    schema: positiveInt,
    default: 7 * 24 * 3600,
    flag: 'session-ttl',
    env: 'HOLDPOINT_SESSION_TTL_SECONDS',
    placeholder: 'SECONDS',
    doc: 'how long sessions (and ended pauses, for `410`) are kept after their last change; ≥ pause TTL',
  }),
  memoryMaxSessions: setting({
    schema: positiveInt,
    default: 10_000,
    flag: 'memory-max-sessions',
    env: 'HOLDPOINT_MEMORY_MAX_SESSIONS',
    placeholder: 'COUNT',
    doc: "the memory store's bound: the least recently changed idle sessions make room; paused and running ones are never dropped (new sessions get `503 STORE_FULL` instead)",
  }),
  memoryMaxMb: setting({
    schema: positiveInt,
    default: 256,
    flag: 'memory-max-mb',
    env: 'HOLDPOINT_MEMORY_MAX_MB',
    placeholder: 'MB',
    doc: "about how much the memory store's sessions may take, as JSON, with the same eviction",
  }),
};
