import { HoldpointError } from '../../core/errors.js';
import { ADMIN_ROLE, hasRole, type Principal, SYSTEM } from '../../core/principal.js';
import type { ApprovalRequest, Approvers, Pause } from '../../core/types.js';

/** Who decides when a tool says nothing: the session's owner, or an admin. */
export const DEFAULT_APPROVERS: Approvers = {
  owner: true,
  roles: [ADMIN_ROLE],
  users: [],
  quorum: 1,
  requesterMayApprove: true,
};

/** The approvers of `approval` (the default for one asked before policies were recorded). */
export function approversOf(approval: ApprovalRequest): Approvers {
  return approval.approvers ?? DEFAULT_APPROVERS;
}

/**
 * Who may decide an approval of `pause`, as index keys: `user:<id>` (the owner, when
 * the policy lets them, and the users it names) and `role:<name>`. The inbox of a
 * principal reads the keys of its id and roles.
 */
export function pauseAudiences(pause: Pause): string[] {
  const audiences = new Set<string>();
  for (const approval of pause.approvals) {
    for (const audience of approvalAudiences(approval, pause.userId)) audiences.add(audience);
  }
  return [...audiences];
}

/**
 * Who may decide `approval` of a session owned by `ownerId`, as audiences: `user:<id>`
 * (the owner, when the policy lets them, and the users it names) and `role:<name>`.
 */
export function approvalAudiences(approval: ApprovalRequest, ownerId: string): string[] {
  const { owner, roles, users } = approversOf(approval);
  return [
    ...(owner ? [`user:${ownerId}`] : []),
    ...users.map((user) => `user:${user}`),
    ...roles.map((role) => `role:${role}`),
  ];
}

/** The index keys a principal's inbox reads: its own id's and its roles'. */
export function principalAudiences(principal: Principal): string[] {
  return [`user:${principal.id}`, ...principal.roles.map((role) => `role:${role}`)];
}

/**
 * Whether `by` is among `approvers` of a session owned by `ownerId`: its owner (when the
 * policy lets them), a user the policy names, or someone holding a role it names. An
 * unknown owner (undefined) is nobody.
 */
export function isApprover(
  approvers: Approvers,
  by: Principal,
  ownerId: string | undefined,
): boolean {
  return (
    (approvers.owner && ownerId !== undefined && by.id === ownerId) ||
    approvers.users.includes(by.id) ||
    approvers.roles.some((role) => hasRole(by, role))
  );
}

/**
 * Why `by` may not decide `approval` (`approved` or not) of a session owned by
 * `ownerId` in a run started by `requesterId`, or undefined when they may. Holdpoint
 * itself (a timed-out wait) may only deny.
 */
export function deciderRefusal(
  approval: ApprovalRequest,
  by: Principal,
  approved: boolean,
  ownerId: string,
  requesterId: string | undefined,
): HoldpointError | undefined {
  if (by === SYSTEM) {
    return approved
      ? new HoldpointError('FORBIDDEN', 'Holdpoint itself only denies (a wait that timed out).')
      : undefined;
  }
  const approvers = approversOf(approval);
  const details = { approval_id: approval.approvalId, principal: by.id };
  if (!isApprover(approvers, by, ownerId)) {
    return new HoldpointError(
      'FORBIDDEN',
      `${by.id} is not among those who may decide ${approval.toolName} (${describeApprovers(approvers)}).`,
      { ...details, reason: 'not_an_approver' },
    );
  }
  if (approved && !approvers.requesterMayApprove && by.id === requesterId) {
    return new HoldpointError(
      'FORBIDDEN',
      `${by.id} asked for this ${approval.toolName} and may not approve it; someone else must (they may still deny it).`,
      { ...details, reason: 'requester' },
    );
  }
  return undefined;
}

/** Who a policy asks, in words: "the session’s owner, role approver, bob" (or "nobody"). */
export function describeApprovers({ owner, roles, users }: Approvers): string {
  const who = [
    ...(owner ? ['the session’s owner'] : []),
    ...roles.map((role) => `role ${role}`),
    ...users,
  ];
  return who.length > 0 ? who.join(', ') : 'nobody';
}

/** Whether `by` is among those who may decide some approval of `pause` (approve or deny). */
export function amongDeciders(
  pause: Pause,
  by: Principal,
  requesterId: string | undefined,
): boolean {
  return (
    by !== SYSTEM &&
    pause.approvals.some((a) => !deciderRefusal(a, by, false, pause.userId, requesterId))
  );
}

/**
 * Whether `by` may decide some approval of `pause` while it still waits: such a person
 * may read the session, to see what they are asked.
 */
export function decidesOn(pause: Pause, by: Principal, requesterId: string | undefined): boolean {
  return pause.status === 'pending' && amongDeciders(pause, by, requesterId);
}
