import { z } from 'zod';
import { HoldpointError } from '../core/errors.js';
import type { Delegation } from './delegations.js';
import { decodeVersioned } from './record-codec.js';

const storedDelegation = z.object({
  v: z.literal(1),
  userId: z.string(),
  delegate: z.string(),
  from: z.number(),
  until: z.number(),
  reason: z.string().optional(),
  createdAt: z.number(),
});

/** A delegation as every store keeps it: its fields and the record version `v`. */
export function encodeDelegation(delegation: Delegation): string {
  return JSON.stringify({ v: 1, ...delegation });
}

/** A stored delegation of `userId` read back; RECORD_UNREADABLE when it is not one. */
export function decodeDelegation(json: string | null, userId: string): Delegation | undefined {
  return decodeVersioned(
    json,
    storedDelegation,
    () =>
      new HoldpointError(
        'RECORD_UNREADABLE',
        `The stored delegation of ${userId} cannot be read.`,
        { record: 'delegation' },
      ),
  );
}
