import { z } from 'zod';
import { positiveNumber } from '../../core/validate.js';

/** The file a SQLite store keeps in its data directory. */
export const SQLITE_FILE_NAME = 'holdpoint.db';

/** What `sqliteStore(...)` and the store itself take; checked by `sqliteStore`. */
export const sqliteStoreOptions = z
  .strictObject({
    /** The data directory: the database is `<dataDir>/holdpoint.db` (made when missing). */
    dataDir: z.string().min(1).optional(),
    /** The database file itself, instead of a data directory. */
    path: z.string().min(1).optional(),
    /**
     * `normal` (default): a commit survives the process being killed; a power loss may
     * lose the last commits. `full`: synced to disk before it is acknowledged.
     */
    synchronous: z.enum(['normal', 'full']).optional(),
    /** A session is kept this long after its last change (or its pause's retention). Default 7 days. */
    sessionTtlSeconds: positiveNumber.optional(),
    /**
     * Whether opening a database at an older schema migrates it (default `true`); with
     * `false` it is refused (SCHEMA_OUTDATED) until `holdpoint db migrate` runs.
     */
    migrate: z.boolean().optional(),
  })
  .refine((o) => (o.dataDir === undefined) !== (o.path === undefined), {
    message: 'give exactly one of dataDir or path',
  });

/** Settings of the SQLite store: a data directory (or a file), how it syncs, for how long. */
export type SqliteStoreOptions = z.input<typeof sqliteStoreOptions>;
