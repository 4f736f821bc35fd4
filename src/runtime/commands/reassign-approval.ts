import { approvalNotFound } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest, Decision } from '../../core/types.js';
import { reassignTransition } from '../../session/transitions/index.js';
import type { ReassignRequest } from '../requests.js';
import type { RuntimeContext } from '../runtime-context.js';

/** An approval after it was handed on, with the session it waits in. */
export interface ReassignedApproval extends ApprovalRequest {
  sessionId: string;
  /** The votes recorded on it so far (an approved edit among them changes its arguments). */
  votes: Decision[];
}

/**
 * Hands a pending approval to the user `to`, who may then decide it (the tool's policy
 * still holds for them): `by` must be among those who may decide it. Audited
 * `delegated` naming `to`, and listed in `to`'s inbox from that commit on.
 */
export async function reassignApproval(
  ctx: RuntimeContext,
  request: ReassignRequest,
  by: Principal,
): Promise<ReassignedApproval> {
  const { approvalId, to, reason } = request;
  const sessionId = await ctx.store.findApproval(approvalId);
  if (!sessionId) throw approvalNotFound(approvalId);
  const pause = await ctx.store.apply(sessionId, reassignTransition, [
    approvalId,
    to,
    by,
    reason,
    ctx.clock.now(),
  ]);
  ctx
    .log(sessionId, pause.invocationId)
    .info({ approval_id: approvalId, by: by.id, to }, 'approval reassigned');
  const approval = pause.approvals.find((a) => a.approvalId === approvalId) as ApprovalRequest;
  return {
    ...approval,
    sessionId,
    votes: pause.decisions.filter((d) => d.approvalId === approvalId),
  };
}
