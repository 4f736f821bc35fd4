import { approversOf, deciderRefusal } from './approvers.js';
import { type Principal, SYSTEM } from './principal.js';
import { hasVoted } from './settlement.js';
import type { ApprovalRequest, Pause } from './types.js';

/**
 * Whether `by` may decide `approval` of `pause` now, in a run started by `requesterId`:
 * it is among the approval's approvers, may approve it (so the requester of a call
 * only others may approve may not) and has not voted on it yet. What an inbox lists,
 * and what a client shows a decision dialog for (`can_decide`). With `delegators` (the
 * people whose out-of-office delegation to `by` is in force), also what one of them
 * may decide (the requester rule holding for `by` too), as decideTransition allows.
 */
export function mayDecideNow(
  pause: Pause,
  approval: ApprovalRequest,
  by: Principal,
  requesterId: string | undefined,
  delegators: readonly string[] = [],
): boolean {
  if (by === SYSTEM || hasVoted(pause, approval.approvalId, by.id)) return false;
  if (!deciderRefusal(approval, by, true, pause.userId, requesterId)) return true;
  if (by.id === requesterId && !approversOf(approval).requesterMayApprove) return false;
  return delegators.some(
    (id) => !deciderRefusal(approval, { id, roles: [] }, true, pause.userId, requesterId),
  );
}
