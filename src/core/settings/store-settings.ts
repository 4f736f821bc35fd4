import { z } from 'zod';
import { STORE_KINDS } from '../store-kinds.js';
import { redisKeyPrefix } from '../validate.js';
import { setting } from './setting.js';

const positiveInt = z.number().int().positive();

/** Where sessions are kept, and for how long. */
export const STORE_SETTINGS = {
  store: setting({
    schema: z.enum(STORE_KINDS),
    default: 'sqlite',
    flag: 'store',
    env: 'HOLDPOINT_STORE',
    placeholder: STORE_KINDS.join('|'),
    doc: '`sqlite` (one machine, a file in `--data-dir`), `postgres` or `redis` (any number of instances), `memory` (this process only: lost when it stops); see [stores](stores.md)',
  }),
  dataDir: setting({
    schema: z.string().min(1),
    default: '.holdpoint',
    flag: 'data-dir',
    env: 'HOLDPOINT_DATA_DIR',
    placeholder: 'DIR',
    doc: "the SQLite store's directory (made when missing; relative to the working directory): its database is `holdpoint.db` there; one `holdpoint serve` at a time (it holds `holdpoint.lock` there)",
  }),
  sqliteSynchronous: setting({
    schema: z.enum(['normal', 'full']),
    default: 'normal',
    flag: 'sqlite-synchronous',
    env: 'HOLDPOINT_SQLITE_SYNCHRONOUS',
    placeholder: 'normal|full',
    doc: '`normal`: a commit survives the process being killed, a power loss may lose the last ones; `full`: synced to disk before it is acknowledged (slower)',
  }),
  postgresUrl: setting({
    schema: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL'),
    default: 'postgres://127.0.0.1:5432/holdpoint',
    flag: 'postgres-url',
    env: 'DATABASE_URL',
    placeholder: 'URL',
    doc: 'PostgreSQL connection URL (the database must exist; Holdpoint creates its `hp_*` tables); without a user in it, `PGUSER`, else `USER`: with neither it is refused at once',
  }),
  postgresMaxConnections: setting({
    schema: z.number().int().positive().max(1000),
    default: 10,
    flag: 'postgres-max-connections',
    env: 'HOLDPOINT_POSTGRES_MAX_CONNECTIONS',
    placeholder: 'COUNT',
    doc: "connections of this process's PostgreSQL pool; a request waits its turn for one (see `--postgres-max-waiting`)",
  }),
  postgresMaxWaiting: setting({
    schema: z.number().int().nonnegative().max(1_000_000),
    default: 2_000,
    flag: 'postgres-max-waiting',
    env: 'HOLDPOINT_POSTGRES_MAX_WAITING',
    placeholder: 'COUNT',
    doc: 'requests of this process that may wait for a PostgreSQL connection; past it a new one is answered `503 STORE_BUSY` with `Retry-After` (a run already under way always waits its turn)',
  }),
  postgresPreparedStatements: setting({
    schema: z.enum(['on', 'off']),
    default: 'on',
    flag: 'postgres-prepared-statements',
    env: 'HOLDPOINT_POSTGRES_PREPARED_STATEMENTS',
    placeholder: 'on|off',
    doc: '`on`: each connection prepares the statements of a cycle once (planning them at every call takes most of their time); `off` behind a pooler that cannot keep prepared statements per client (PgBouncer in transaction mode before 1.21)',
  }),
  migrate: setting({
    schema: z.enum(['auto', 'never']),
    default: 'auto',
    flag: 'migrate',
    env: 'HOLDPOINT_MIGRATE',
    placeholder: 'auto|never',
    doc: 'a SQL database at an older schema: `auto` migrates it at start; `never` refuses to start (`SCHEMA_OUTDATED`) until `holdpoint db migrate` runs',
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
