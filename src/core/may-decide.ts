import { deciderRefusal } from './approvers.js';
import { type Principal, SYSTEM } from './principal.js';
import { hasVoted } from './settlement.js';
import type { ApprovalRequest, Pause } from './types.js';

/**
 * Whether `by` may decide `approval` of `pause` now, in a run started by `requesterId`:
 * it is among the approval's approvers, may approve it (so the requester of a call
 * only others may approve may not) and has not voted on it yet. What an inbox lists,
 * and what a client shows a decision dialog for (`can_decide`).
 */
export function mayDecideNow(
  pause: Pause,
  approval: ApprovalRequest,
  by: Principal,
  requesterId: string | undefined,
): boolean {
  return (
    by !== SYSTEM &&
    !hasVoted(pause, approval.approvalId, by.id) &&
    !deciderRefusal(approval, by, true, pause.userId, requesterId)
  );
}
