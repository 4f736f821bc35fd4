import { HoldpointError } from '../../core/errors.js';
import type { ApprovalRequest, Pause } from '../../core/types.js';
import { undecidedAudit } from '../audit/audit-entries.js';
import { approversOf } from '../decision/approvers.js';
import { settlingDecision } from '../decision/settlement.js';
import type { SessionSnapshot, SessionWrites } from '../session-shapes.js';
import { idle } from './session-writes.js';

/**
 * The approvals of `pause` still waiting for people (not settled by a denial or their
 * quorum); none once the pause is not pending.
 */
export function undecidedApprovals(pause: Pause | undefined): ApprovalRequest[] {
  if (pause?.status !== 'pending') return [];
  return pause.approvals.filter((a) => !settlingDecision(pause, a));
}

/**
 * The pause decisions and cancellations are about: the latest one, while it belongs
 * to the session's current run (a newer run leaves nothing to decide).
 */
export function currentPause(snapshot: SessionSnapshot): Pause | undefined {
  const { pause, meta } = snapshot;
  return pause?.invocationId === meta.invocationId ? pause : undefined;
}

/** The pause this run resumed from, while it is still being resumed. */
export function resumedPause(snapshot: SessionSnapshot, invocationId: string): Pause | undefined {
  const { pause } = snapshot;
  return pause?.status === 'resuming' && pause.invocationId === invocationId ? pause : undefined;
}

export function expiredWrites(snapshot: SessionSnapshot, pause: Pause, now: number): SessionWrites {
  return {
    meta: idle(snapshot.meta, now),
    pauses: [{ ...pause, status: 'expired' }],
    runs: snapshot.run && [{ ...snapshot.run, status: 'expired', updatedAt: now }],
    audit: undecidedAudit(pause, 'expired', 'system', now),
  };
}

export function expiredError(pause: Pause): HoldpointError {
  return new HoldpointError('APPROVAL_EXPIRED', 'The pause expired; it can no longer resume.', {
    expired_at: new Date(pause.expiresAt).toISOString(),
  });
}

/** `approval` with `to`'s roles and users among its approvers. */
export function withApprovers(
  approval: ApprovalRequest,
  to: { roles?: string[]; users?: string[] },
): ApprovalRequest {
  const approvers = approversOf(approval);
  return {
    ...approval,
    approvers: {
      ...approvers,
      roles: [...new Set([...approvers.roles, ...(to.roles ?? [])])],
      users: [...new Set([...approvers.users, ...(to.users ?? [])])],
    },
  };
}
