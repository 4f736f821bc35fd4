import { approversOf } from './approvers.js';
import type { ApprovalRequest, Decision, Pause } from './types.js';

/** The votes recorded on one approval, in order. */
export function votesOn(pause: Pause, approvalId: string): Decision[] {
  return pause.decisions.filter((d) => d.approvalId === approvalId);
}

/**
 * Whether `person` has voted on the approval `approvalId` of `pause`: themselves, or
 * through their out-of-office delegate (`onBehalfOf`). A person's vote counts once
 * either way, so a quorum is never met by one person and their delegate.
 */
export function hasVoted(pause: Pause, approvalId: string, person: string): boolean {
  return pause.decisions.some(
    (d) => d.approvalId === approvalId && (d.decidedBy === person || d.onBehalfOf === person),
  );
}

/**
 * The decision that settled `approval`: the first denial, or the approval that brought
 * the distinct approvers to its quorum; undefined while it still waits for people.
 */
export function settlingDecision(pause: Pause, approval: ApprovalRequest): Decision | undefined {
  const votes = votesOn(pause, approval.approvalId);
  const denial = votes.find((d) => !d.approved);
  if (denial) return denial;
  const quorum = approval.kind === 'input' ? 1 : approversOf(approval).quorum;
  const approvers = new Set<string>();
  for (const vote of votes) {
    approvers.add(vote.decidedBy);
    if (approvers.size >= quorum) return vote;
  }
  return undefined;
}

/** One decision per settled approval of `pause`, in the pause's order. */
export function settledDecisions(pause: Pause): Decision[] {
  return pause.approvals.flatMap((approval) => {
    const settled = settlingDecision(pause, approval);
    return settled ? [settled] : [];
  });
}
