import { HoldpointError } from '../core/errors.js';
import { hasVoted, settlingDecision } from '../core/settlement.js';
import type { Decision, Pause } from '../core/types.js';

/**
 * Why `decisions` cannot be recorded on `pause` at time `now`, or undefined when
 * they can. Stores call it inside their atomic section.
 */
export function decisionConflict(
  pause: Pause,
  decisions: Decision[],
  now: number,
): HoldpointError | 'expire' | undefined {
  if (pause.status === 'expired') {
    return new HoldpointError('APPROVAL_EXPIRED', 'The pause expired; it can no longer resume.');
  }
  if (pause.status === 'cancelled') {
    return new HoldpointError('PAUSE_CANCELLED', 'The run was cancelled.');
  }
  const byId = new Map(pause.approvals.map((a) => [a.approvalId, a]));
  const seen = new Set<string>();
  for (const decision of decisions) {
    const approval = byId.get(decision.approvalId);
    if (!approval) {
      return new HoldpointError(
        'APPROVAL_NOT_FOUND',
        `No approval ${decision.approvalId} in this pause.`,
        { approval_id: decision.approvalId },
      );
    }
    if (settlingDecision(pause, approval) || seen.has(decision.approvalId)) {
      return new HoldpointError(
        'ALREADY_DECIDED',
        `Approval ${decision.approvalId} is already decided.`,
        {
          approval_id: decision.approvalId,
        },
      );
    }
    if (hasVoted(pause, decision.approvalId, decision.decidedBy)) {
      return new HoldpointError(
        'ALREADY_VOTED',
        `${decision.decidedBy} already decided on approval ${decision.approvalId}; it waits for someone else.`,
        { approval_id: decision.approvalId, decided_by: decision.decidedBy },
      );
    }
    seen.add(decision.approvalId);
    const valueless = decision.payload === undefined || decision.payload === null;
    if (approval.kind === 'input' && decision.approved && valueless) {
      return new HoldpointError(
        'VALIDATION_FAILED',
        `Approval ${decision.approvalId} (${approval.toolName}) waits for a value: give it as the decision's payload.`,
        { approval_id: decision.approvalId, missing: 'payload' },
      );
    }
  }
  if (pause.status !== 'pending') {
    return new HoldpointError(
      'ALREADY_DECIDED',
      'Every approval of this pause is already decided.',
    );
  }
  if (now >= pause.expiresAt) return 'expire';
  return undefined;
}
