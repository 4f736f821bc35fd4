import { HoldpointError } from '../../core/errors.js';
import type { ApprovalRequest, Decision, Pause } from '../../core/types.js';
import { hasVoted, settlingDecision } from './settlement.js';

/**
 * Why `decisions` cannot be recorded on `pause` at time `now`, or undefined when
 * they can. `decideTransition` calls it, inside the store's compare-and-set.
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
    const shape = variantConflict(approval, decision);
    if (shape) return shape;
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

function invalid(decision: Decision, message: string, details: Record<string, unknown> = {}) {
  return new HoldpointError('VALIDATION_FAILED', message, {
    approval_id: decision.approvalId,
    ...details,
  });
}

/**
 * Why `decision` is no decision `approval` can take (VALIDATION_FAILED), or undefined:
 * an answer in the tool's place, an edit and a grant go with an approval only, an edit
 * never with an answer; an input takes no edit and no grant, and waits for a value
 * (`payload` or `response`, one of them).
 */
function variantConflict(
  approval: ApprovalRequest,
  decision: Decision,
): HoldpointError | undefined {
  const id = decision.approvalId;
  const { editedArgs, response, grant, payload } = decision;
  if (!decision.approved) {
    if (response !== undefined)
      return invalid(
        decision,
        `A rejection of ${id} carries no response: approve it to answer in the tool's place.`,
        { field: 'response' },
      );
    if (editedArgs !== undefined)
      return invalid(decision, `A rejection of ${id} carries no edited arguments.`, {
        field: 'edited_args',
      });
    if (grant !== undefined)
      return invalid(decision, `A rejection of ${id} makes no grant.`, { field: 'grant' });
    return undefined;
  }
  if (editedArgs !== undefined && response !== undefined) {
    return invalid(decision, `Approval ${id}: give edited arguments or a response, not both.`, {
      field: 'response',
    });
  }
  if (approval.kind === 'confirmation') return undefined;
  if (editedArgs !== undefined) {
    return invalid(
      decision,
      `Approval ${id} (${approval.toolName}) waits for a value; it has no arguments to edit: give the value as its response.`,
      { field: 'edited_args' },
    );
  }
  if (grant !== undefined) {
    return invalid(
      decision,
      `Approval ${id} (${approval.toolName}) waits for a value; it makes no grant.`,
      { field: 'grant' },
    );
  }
  const given = (value: unknown) => value !== undefined && value !== null;
  if (given(payload) && given(response)) {
    return invalid(
      decision,
      `Approval ${id} (${approval.toolName}) waits for one value: give it as the response or as the payload, not both.`,
      { field: 'response' },
    );
  }
  if (!given(payload) && !given(response)) {
    return invalid(
      decision,
      `Approval ${id} (${approval.toolName}) waits for a value: give it as the decision's payload.`,
      { missing: 'payload' },
    );
  }
  return undefined;
}
