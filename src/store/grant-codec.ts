import { z } from 'zod';
import { HoldpointError } from '../core/errors.js';
import type { ArgCondition, Grant } from '../core/grants.js';
import { decodeVersioned } from './record-codec.js';

const storedGrant = z.object({
  v: z.literal(1),
  grantId: z.string(),
  app: z.string(),
  toolName: z.string(),
  userId: z.string(),
  scope: z.enum(['session', 'user']),
  sessionId: z.string(),
  approvalId: z.string(),
  // Checked when it was asked for (grantInput); read back as stored.
  match: z.record(z.string(), z.custom<ArgCondition>()).optional(),
  grantedBy: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
  revokedAt: z.number().optional(),
  revokedBy: z.string().optional(),
});

/** A grant as every store keeps it: its fields and the record version `v`. */
export function encodeGrant(grant: Grant): string {
  return JSON.stringify({ v: 1, ...grant });
}

/** A stored grant read back; RECORD_UNREADABLE when it is not one. */
export function decodeGrant(json: string | null, grantId: string): Grant | undefined {
  return decodeVersioned(
    json,
    storedGrant,
    () =>
      new HoldpointError('RECORD_UNREADABLE', `The stored grant ${grantId} cannot be read.`, {
        record: 'grant',
        grant_id: grantId,
      }),
  );
}

/** Where a page of a user's grants (newest first) goes on: after this grant. */
export interface GrantCursor {
  createdAt: number;
  grantId: string;
}

/** The `next` cursor of a page that ended at `grant`. */
export function grantCursor(grant: Grant): string {
  return `${grant.createdAt}:${grant.grantId}`;
}

/** A cursor read back; VALIDATION_FAILED when it is not one `grantCursor` made. */
export function parseGrantCursor(cursor: string): GrantCursor {
  const at = cursor.indexOf(':');
  const createdAt = Number(cursor.slice(0, at));
  const grantId = cursor.slice(at + 1);
  if (at <= 0 || !Number.isSafeInteger(createdAt) || grantId === '') {
    throw new HoldpointError('VALIDATION_FAILED', 'cursor: not a cursor this server gave out.', {
      field: 'cursor',
    });
  }
  return { createdAt, grantId };
}

/** Whether `grant` comes after `cursor` in newest-first order (created later first, then by id, descending). */
export function afterGrantCursor(grant: Grant, cursor: GrantCursor): boolean {
  return (
    grant.createdAt < cursor.createdAt ||
    (grant.createdAt === cursor.createdAt && grant.grantId < cursor.grantId)
  );
}

/** Newest first: by creation time, then by id, both descending. */
export function newestFirst(a: Grant, b: Grant): number {
  return b.createdAt - a.createdAt || (a.grantId < b.grantId ? 1 : a.grantId > b.grantId ? -1 : 0);
}
