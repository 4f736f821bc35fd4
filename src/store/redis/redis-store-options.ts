import type { Redis } from 'ioredis';
import { z } from 'zod';
import { SETTINGS } from '../../core/settings/settings.js';
import { positiveNumber } from '../../core/validate.js';

/** What `redisStore(...)` and the store itself take; checked by `redisStore`. */
export const redisStoreOptions = z
  .strictObject({
    /** e.g. `redis://127.0.0.1:6379/0`. */
    url: z
      .string()
      .regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL')
      .optional(),
    /**
     * An existing ioredis client (not a Cluster): the store opens connections of its own
     * with the client's settings, and never reconfigures or closes yours.
     */
    client: z
      .custom<Redis>(
        (value) => typeof (value as Redis | undefined)?.duplicate === 'function',
        'an ioredis client (new Redis(...))',
      )
      .optional(),
    /** Prefix of every key, so deployments can share one Redis. Default `hp`. */
    keyPrefix: SETTINGS.redisPrefix.schema.optional(),
    /** A session's keys expire this long after its last change (or its pause's retention). Default 7 days. */
    sessionTtlSeconds: positiveNumber.optional(),
  })
  .refine((o) => (o.url === undefined) !== (o.client === undefined), {
    message: 'give exactly one of url or client',
  });

/** Settings of the Redis store: a `url`, or an existing ioredis `client`. */
export type RedisStoreOptions = z.input<typeof redisStoreOptions>;
