import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import { ADMIN_ROLE, hasRole, type Principal, SYSTEM } from '../../core/principal.js';
import type { ApprovalRequest, Decision } from '../../core/types.js';
import { idText } from '../../core/validate.js';
import { principalAudiences } from '../../session/decision/approvers.js';
import { mayDecideNow } from '../../session/decision/may-decide.js';
import { undecidedApprovals } from '../../session/transitions/index.js';
import type { PageCursor } from '../../store/store.js';
import type { RuntimeContext } from '../runtime-context.js';
import { delegatorsOf } from './delegators.js';
import { decodeCursor, encodeCursor, PAGE_FIELDS } from './page-cursor.js';

/** A pending approval with the run it belongs to. */
export interface PendingApproval extends ApprovalRequest {
  sessionId: string;
  invocationId: string;
  app: string;
  userId: string;
  /** Whether the caller may decide it now (listed for another user, they may not). */
  canDecide: boolean;
  /** The votes recorded on it so far (an approved edit among them changes its arguments). */
  votes: Decision[];
}

/**
 * Which pending approvals to list: one owner's or everyone's, a page of at most
 * `limit` approvals at a time.
 */
export const pendingQuery = z.strictObject({
  userId: idText.optional(),
  ...PAGE_FIELDS,
});
export type PendingQuery = z.input<typeof pendingQuery>;

/** A page of pending approvals, earliest expiry first; `nextCursor` when there is more. */
export interface PendingPage {
  approvals: PendingApproval[];
  nextCursor?: string;
}

/**
 * Pending approvals the caller may decide across sessions (as each tool's approvers
 * say, and not decided by them yet, or by someone out of office who left their
 * approvals to them) — for an admin naming `userId`, what that user
 * may decide; for Holdpoint itself (a host's read in process), all of them — read a
 * page at a time from the indexes of paused sessions by who may decide them: the cost
 * is the page, not the number of paused runs.
 */
export async function listApprovals(
  ctx: RuntimeContext,
  query: z.output<typeof pendingQuery>,
  by: Principal,
): Promise<PendingPage> {
  const { limit, cursor, ...asked } = query;
  // An admin may look at what another user may decide, as that user.
  const other = asked.userId !== undefined && asked.userId !== by.id ? asked.userId : undefined;
  if (other && !hasRole(by, ADMIN_ROLE)) {
    throw new HoldpointError('FORBIDDEN', "Only an admin lists another user's approvals.", {
      principal: by.id,
    });
  }
  const as: Principal = other ? { id: other, roles: [] } : by;
  // Holdpoint itself (a host's own read in process) lists every pending approval.
  const everything = as === SYSTEM;
  const now = ctx.clock.now();
  // A delegate's inbox holds what waits for the people away who left it to them.
  const delegators = await delegatorsOf(ctx, as, now);
  const callerDelegators = other ? await delegatorsOf(ctx, by, now) : delegators;
  const audiences = [...principalAudiences(as), ...delegators.map((id) => `user:${id}`)];
  const page = await ctx.store.listPaused(
    {
      audiences: everything ? undefined : [...new Set(audiences)],
      limit,
      after: cursor === undefined ? undefined : decodeCursor(cursor),
    },
    now,
  );
  // At most `limit` approvals, whole sessions only: one session with more comes alone.
  const approvals: PendingApproval[] = [];
  let last: PageCursor | undefined;
  for (const { meta, pause, run } of page.items) {
    if (!pause) continue;
    const open = undecidedApprovals(pause).filter(
      (approval) => everything || mayDecideNow(pause, approval, as, run?.userId, delegators),
    );
    if (approvals.length > 0 && approvals.length + open.length > limit) {
      return { approvals, nextCursor: last && encodeCursor(last) };
    }
    approvals.push(
      ...open.map((approval) => ({
        ...approval,
        sessionId: meta.sessionId,
        invocationId: pause.invocationId,
        app: meta.app,
        userId: meta.userId,
        canDecide: mayDecideNow(pause, approval, by, run?.userId, callerDelegators),
        votes: pause.decisions.filter((d) => d.approvalId === approval.approvalId),
      })),
    );
    last = { score: pause.expiresAt, member: meta.sessionId };
  }
  return { approvals, nextCursor: page.next && encodeCursor(page.next) };
}
