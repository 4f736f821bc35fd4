import type { ApprovalEvent } from '../../core/approval-event.js';
import type { Approvers } from '../../core/types.js';
import { isApprover } from '../../session/decision/approvers.js';
import type { DeliveryContext } from './channel.js';

/** Who may decide the approval `event` is about, as the event tells it. */
function approversOf(event: ApprovalEvent): Approvers {
  const { owner, roles, users, quorum, requester_may_approve } = event.approval.approvers;
  return { owner, roles, users, quorum, requesterMayApprove: requester_may_approve };
}

/**
 * Whether `recipient` is among those who may decide the approval of `event`, by the
 * same rule a decision is checked with (`isApprover`): a role the approval names; a
 * person it names, its session's owner when the policy lets them, or someone holding one
 * of its roles (`rolesOf`, the directory's members); a delegate when they or the person
 * they stand for (as that person, without their roles) may. Only such a recipient gets
 * a decision link: anyone else (a `notify.to` who is no approver, an endpoint) is told.
 * An event planned before `user_id` was added names no owner, so the owner is nobody.
 */
export function recipientMayDecide(
  event: ApprovalEvent,
  recipient: Pick<DeliveryContext['recipient'], 'audience' | 'onBehalfOf'>,
  rolesOf: (userId: string) => readonly string[],
): boolean {
  const approvers = approversOf(event);
  const { audience, onBehalfOf } = recipient;
  if (audience.startsWith('role:')) return approvers.roles.includes(audience.slice('role:'.length));
  if (!audience.startsWith('user:')) return false;
  const id = audience.slice('user:'.length);
  const owner = event.user_id;
  if (isApprover(approvers, { id, roles: rolesOf(id) }, owner)) return true;
  return onBehalfOf !== undefined && isApprover(approvers, { id: onBehalfOf, roles: [] }, owner);
}
