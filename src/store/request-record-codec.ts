import { z } from 'zod';
import { HoldpointError } from '../core/errors.js';
import { decodeVersioned } from './record-codec.js';
import type { RequestRecord } from './request-records.js';

const storedRequestRecord = z.object({
  v: z.literal(1),
  fingerprint: z.string(),
  state: z.enum(['pending', 'done']),
  until: z.number(),
  answer: z
    .union([
      z.object({ ok: z.unknown() }),
      z.object({
        error: z.object({
          code: z.string(),
          message: z.string(),
          details: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    ])
    .optional(),
});

/** A request record as every store keeps it: its fields and the record version `v`. */
export function encodeRequestRecord(record: RequestRecord): string {
  return JSON.stringify({ v: 1, ...record });
}

/**
 * A stored request record read back; RECORD_UNREADABLE when it is not one this release
 * wrote (a caller must not act again on a key whose first answer it cannot read).
 */
export function decodeRequestRecord(json: string | null): RequestRecord | undefined {
  return decodeVersioned(
    json,
    storedRequestRecord,
    () =>
      new HoldpointError(
        'RECORD_UNREADABLE',
        'The stored answer of this Idempotency-Key cannot be read.',
        { record: 'request' },
      ),
  ) as RequestRecord | undefined;
}
