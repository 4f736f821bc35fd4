import { HoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { Pause } from '../../core/types.js';
import { approvalAudit } from '../audit/audit-entries.js';
import { approversOf, deciderRefusal } from '../decision/approvers.js';
import { settlingDecision } from '../decision/settlement.js';
import type { SessionSnapshot, Transition } from '../session-shapes.js';
import { currentPause, expiredError, expiredWrites, withApprovers } from './pause-state.js';
import { touch } from './session-writes.js';

/**
 * `by`, someone who may decide the approval (approve or deny it), hands it to the user
 * `to`: `to` joins its approvers (the policy still applies to them: the requester rule,
 * the quorum) and a `delegated` line names them with `reason`. Refused as deciding is
 * (FORBIDDEN, APPROVAL_NOT_FOUND, ALREADY_DECIDED, NO_PENDING_APPROVAL, APPROVAL_EXPIRED
 * with the expiry recorded).
 */
export function reassignTransition(
  snapshot: SessionSnapshot,
  approvalId: string,
  to: string,
  by: Principal,
  reason: string | undefined,
  now: number,
): Transition<Pause> {
  const { meta, run } = snapshot;
  const pause = currentPause(snapshot);
  const approval = pause?.approvals.find((a) => a.approvalId === approvalId);
  const refusal = approval && deciderRefusal(approval, by, false, meta.userId, run?.userId);
  if (!approval || refusal || !pause) {
    throw (
      refusal ??
      new HoldpointError('APPROVAL_NOT_FOUND', `No approval ${approvalId} waits on this session.`, {
        approval_id: approvalId,
      })
    );
  }
  if (pause.status === 'expired') throw expiredError(pause);
  if (pause.status === 'cancelled') {
    throw new HoldpointError('PAUSE_CANCELLED', 'The run was cancelled.');
  }
  if (pause.status !== 'pending' || settlingDecision(pause, approval)) {
    throw new HoldpointError('ALREADY_DECIDED', `Approval ${approvalId} is already decided.`, {
      approval_id: approvalId,
    });
  }
  if (now >= pause.expiresAt) {
    return { writes: expiredWrites(snapshot, pause, now), error: expiredError(pause) };
  }
  // Handing it to someone it already names adds nobody: no line, and no notification
  // telling them it was "handed to" them again.
  const approvers = approversOf(approval);
  if (approvers.users.includes(to)) return { value: pause };
  if (!approvers.requesterMayApprove && to === run?.userId) {
    throw new HoldpointError(
      'FORBIDDEN',
      `${to} asked for this ${approval.toolName} and may not approve it; hand it to someone else.`,
      { approval_id: approvalId, principal: to, reason: 'requester' },
    );
  }
  const handed = withApprovers(approval, { users: [to] });
  const next: Pause = {
    ...pause,
    approvals: pause.approvals.map((a) => (a.approvalId === approvalId ? handed : a)),
  };
  const line = approvalAudit(pause, approval, 'delegated', by.id, now, {
    to: [`user:${to}`],
    ...(reason === undefined ? {} : { reason }),
  });
  return {
    writes: { meta: touch(meta, {}, now), pauses: [next], audit: [line] },
    value: next,
  };
}
