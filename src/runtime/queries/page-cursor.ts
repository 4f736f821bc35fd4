import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { PageCursor } from '../../store/store.js';

/** The fields of a paged list's query: how many at most (default 50), and from where. */
export const PAGE_FIELDS = {
  limit: z.number().int().min(1).max(LIMITS.pageSize).default(50),
  cursor: z.string().max(1000).optional(),
};

/** An opaque cursor for the next page of a list. */
export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.score, cursor.member])).toString('base64url');
}

/** The position an opaque cursor names; VALIDATION_FAILED when it is not one. */
export function decodeCursor(text: string): PageCursor {
  try {
    const [score, member] = JSON.parse(Buffer.from(text, 'base64url').toString()) as unknown[];
    if (typeof score === 'number' && Number.isFinite(score) && typeof member === 'string') {
      return { score, member };
    }
  } catch {
    // Falls through to the error below.
  }
  throw new HoldpointError('VALIDATION_FAILED', 'cursor: not a cursor this server gave out.');
}
