import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import type { AuditEntry } from '../../core/types.js';
import { idText } from '../../core/validate.js';
import type { PageCursor } from '../../store/store.js';
import type { RuntimeContext } from '../runtime-context.js';
import { decodeCursor, encodeCursor } from './page-cursor.js';
import { currentSnapshot } from './session-view.js';

/** Which part of a session's audit log to read. */
export const auditQuery = z.strictObject({
  sessionId: idText,
  limit: z.number().int().min(1).max(LIMITS.pageSize).default(LIMITS.pageSize),
  cursor: z.string().max(1000).optional(),
});
export type AuditQuery = z.input<typeof auditQuery>;

/** A page of the audit log, oldest first; `nextCursor` when there is more. */
export interface AuditPage {
  entries: AuditEntry[];
  nextCursor?: string;
}

/**
 * The audit log of a session, a page at a time (a pause past its time is expired
 * first); only for the session's owner or an admin.
 */
export async function readAudit(
  ctx: RuntimeContext,
  query: z.output<typeof auditQuery>,
  by: Principal,
): Promise<AuditPage> {
  const { sessionId, limit, cursor } = query;
  const { meta } = await currentSnapshot(ctx, sessionId);
  requireOwnerOrAdmin(by, meta.userId, 'read the audit log of this session');
  const offset = cursor === undefined ? 0 : auditOffset(decodeCursor(cursor), sessionId);
  // One more than asked tells whether another page follows.
  const entries = await ctx.store.listAudit(sessionId, offset, limit + 1);
  const more = entries.length > limit;
  return {
    entries: entries.slice(0, limit),
    nextCursor: more ? encodeCursor({ score: offset + limit, member: sessionId }) : undefined,
  };
}

/** Where an audit cursor points; only one this session's log gave out counts. */
function auditOffset(cursor: PageCursor, sessionId: string): number {
  if (cursor.member !== sessionId || !Number.isInteger(cursor.score) || cursor.score < 0) {
    throw new HoldpointError('VALIDATION_FAILED', 'cursor: not a cursor of this audit log.');
  }
  return cursor.score;
}
