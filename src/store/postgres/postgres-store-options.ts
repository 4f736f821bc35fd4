import type pg from 'pg';
import { z } from 'zod';
import { positiveNumber } from '../../core/validate.js';

/** What `postgresStore(...)` and the store itself take; checked by `postgresStore`. */
export const postgresStoreOptions = z
  .strictObject({
    /** e.g. `postgres://holdpoint@db.internal:5432/holdpoint`. */
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
      .optional(),
    /** An existing `pg.Pool`: used as it is; the store never ends it. */
    pool: z
      .custom<pg.Pool>(
        (value) =>
          typeof (value as pg.Pool | undefined)?.connect === 'function' &&
          typeof (value as pg.Pool | undefined)?.query === 'function',
        'a pg.Pool (new pg.Pool(...))',
      )
      .optional(),
    /** Connections of the pool the store opens from `url`. Default 10. */
    maxConnections: z.number().int().positive().max(1000).optional(),
    /**
     * Requests that may wait for a connection (each its turn, in order) before new ones
     * are refused with STORE_BUSY (503, Retry-After). Default 2,000.
     */
    maxWaiting: z.number().int().nonnegative().max(1_000_000).optional(),
    /**
     * Whether each connection prepares the statements of a cycle once (default `true`);
     * `false` behind a pooler that cannot keep prepared statements per client (PgBouncer
     * in transaction mode before 1.21): every statement is then planned at every call.
     */
    preparedStatements: z.boolean().optional(),

    /** A session is kept this long after its last change (or its pause's retention). Default 7 days. */
    sessionTtlSeconds: positiveNumber.optional(),
    /**
     * Whether connecting to a database at an older schema migrates it (default `true`,
     * one instance at a time under an advisory lock); with `false` it is refused
     * (SCHEMA_OUTDATED) until `holdpoint db migrate` runs.
     */
    migrate: z.boolean().optional(),
  })
  .refine((o) => (o.url === undefined) !== (o.pool === undefined), {
    message: 'give exactly one of url or pool',
  });

/** What only tests give the store: a hook called with each connection as a caller takes it. */
export interface PostgresStoreHooks {
  onCheckout?: (client: pg.PoolClient) => Promise<void> | void;
}

/** Settings of the PostgreSQL store: a `url`, or an existing `pg.Pool`. */
export type PostgresStoreOptions = z.input<typeof postgresStoreOptions>;
