import { z } from 'zod';
import { SETTINGS } from '../../core/settings/settings.js';
import { positiveNumber } from '../../core/validate.js';

/** What `memoryStore(...)` and the store itself take; checked by `memoryStore`. */
export const memoryStoreOptions = z.strictObject({
  /** A session is forgotten this long after its last change (or its pause's retention). Default 7 days. */
  sessionTtlSeconds: positiveNumber.optional(),
  /** At most this many sessions; the least recently changed idle ones make room. Default 10,000. */
  maxSessions: SETTINGS.memoryMaxSessions.schema.optional(),
  /** At most about this many megabytes of sessions (as JSON); idle ones make room as above. Default 256. */
  maxMb: positiveNumber.optional(),
});

/** Settings of the embedded store. */
export type MemoryStoreOptions = z.input<typeof memoryStoreOptions>;
