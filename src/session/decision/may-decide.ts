import { type Principal, SYSTEM } from '../../core/principal.js';
import type { ApprovalRequest, Pause } from '../../core/types.js';
import { approversOf, deciderRefusal } from './approvers.js';
import { hasVoted, settlingDecision } from './settlement.js';

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
  return decidingFor(pause, approval, by, true, requesterId, delegators) !== undefined;
}

/**
 * Whom `by` decides `approval` for (approving it or not, as `approved` says) through an
 * out-of-office delegation: when `by` may not decide it themselves, the first of
 * `delegators` (the people whose delegation to `by` is in force) who may and has not
 * voted on it yet; undefined when none. A delegate decides as the delegator's user, not
 * with their roles, and the requester rule holds for `by` too (whoever asked for a call
 * only others may approve does not approve it through someone's delegation).
 */
export function decidingFor(
  pause: Pause,
  approval: ApprovalRequest,
  by: Principal,
  approved: boolean,
  requesterId: string | undefined,
  delegators: readonly string[],
): string | undefined {
  if (delegators.length === 0) return undefined;
  if (!deciderRefusal(approval, by, approved, pause.userId, requesterId)) return undefined;
  if (approved && by.id === requesterId && !approversOf(approval).requesterMayApprove) {
    return undefined;
  }
  return delegators.find(
    (id) =>
      !hasVoted(pause, approval.approvalId, id) &&
      !deciderRefusal(approval, { id, roles: [] }, approved, pause.userId, requesterId),
  );
}

/**
 * Whether a delegation to `by` can matter for `pause`: it still waits on an approval
 * `by` may not decide themselves. Only then are their delegators worth reading.
 */
export function mayNeedDelegators(
  pause: Pause | undefined,
  by: Principal,
  requesterId: string | undefined,
): boolean {
  return (
    pause?.status === 'pending' &&
    by !== SYSTEM &&
    pause.approvals.some(
      (approval) =>
        !settlingDecision(pause, approval) &&
        deciderRefusal(approval, by, false, pause.userId, requesterId) !== undefined,
    )
  );
}
