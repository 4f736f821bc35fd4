import { z } from 'zod';
import { STORE_KINDS } from '../../../core/store-kinds.js';

const count = z.number().int().nonnegative();

/**
 * `GET /api/store`: how much the store holds now. A figure the store cannot tell
 * cheaply is left out (Redis keeps no session count; only SQL stores have a schema).
 */
export const storeStats = z.object({
  kind: z.enum(STORE_KINDS),
  /** A SQL store's database schema version. */
  schema_version: count.optional(),
  /** Sessions kept, of any status, finished ones until their retention ends. */
  sessions: count.optional(),
  /** Sessions waiting on a pending pause. */
  paused: count,
  /** Sessions whose run holds a lease (running, or interrupted until recovered). */
  running: count,
  /** Notifications kept in the outbox, until their retention ends. */
  deliveries: count.optional(),
  /** Grants kept, in force or not, until their retention ends. */
  grants: count.optional(),
  /** What the store takes: the database's size on SQL stores, the records' JSON in memory. */
  bytes: count.optional(),
});

export type StoreStatsAnswer = z.output<typeof storeStats>;
