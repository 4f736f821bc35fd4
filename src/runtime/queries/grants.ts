import { z } from 'zod';
import type { Grant } from '../../core/grants.js';
import { type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import { idText } from '../../core/validate.js';
import type { RuntimeContext } from '../runtime-context.js';
import { PAGE_FIELDS } from './page-cursor.js';

/** Whose grants to list (default: the caller's), a page at a time. */
export const grantsQuery = z.strictObject({
  userId: idText.optional(),
  ...PAGE_FIELDS,
});
export type GrantsQuery = z.input<typeof grantsQuery>;

/** A grant as listed: whether it is in force now (not revoked, not expired). */
export type ListedGrant = Grant & { inForce: boolean };

/** A page of grants, newest first; `nextCursor` when there is more. */
export interface GrantsPage {
  grants: ListedGrant[];
  nextCursor?: string;
}

/** `grant` with whether it is in force at `now`. */
export function listedGrant(grant: Grant, now: number): ListedGrant {
  return { ...grant, inForce: grant.revokedAt === undefined && now < grant.expiresAt };
}

/**
 * A user's grants, newest first, in force or not (until purged a retention after they
 * expire): the caller's own, or any user's for an admin (FORBIDDEN otherwise).
 */
export async function listGrants(
  ctx: RuntimeContext,
  query: z.output<typeof grantsQuery>,
  by: Principal,
): Promise<GrantsPage> {
  const { userId = by.id, limit, cursor } = query;
  requireOwnerOrAdmin(by, userId, "list this person's grants");
  const page = await ctx.store.grants.list(userId, limit, cursor);
  const now = ctx.clock.now();
  return {
    grants: page.grants.map((grant) => listedGrant(grant, now)),
    ...(page.next === undefined ? {} : { nextCursor: page.next }),
  };
}
