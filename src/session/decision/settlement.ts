import { hashArgs } from '../../core/hash.js';
import type { ApprovalRequest, Approvers, Decision, Pause } from '../../core/types.js';
import { approversOf } from './approvers.js';

/** The votes recorded on one approval, in order. */
export function votesOn(pause: Pause, approvalId: string): Decision[] {
  return pause.decisions.filter((d) => d.approvalId === approvalId);
}

/**
 * The edit in force on `approval` among `decisions` (its pause's votes, or those a
 * presenter was given without the pause): the latest approved edit, which sets the
 * call's current arguments; without one, the edit carried onto an approval asked again
 * after a crash (`carriedEdit`), which sets them too but is no vote.
 */
export function editInForce(
  decisions: readonly Decision[],
  approval: Pick<ApprovalRequest, 'approvalId' | 'carriedEdit'>,
): Decision | undefined {
  const edits = decisions.filter(
    (d) => d.approvalId === approval.approvalId && d.approved && d.editedArgs !== undefined,
  );
  return edits.at(-1) ?? approval.carriedEdit;
}

/** The edit in force on the approval `approvalId` of `pause` (see editInForce). */
export function latestEdit(pause: Pause, approvalId: string): Decision | undefined {
  const approval = pause.approvals.find((a) => a.approvalId === approvalId) ?? { approvalId };
  return editInForce(pause.decisions, approval);
}

/**
 * The arguments `approval`'s call would run with now: those of its latest approved edit,
 * else the model's. Every decision is bound to these (by their hash).
 */
export function currentArgs(pause: Pause, approval: ApprovalRequest): Record<string, unknown> {
  return latestEdit(pause, approval.approvalId)?.editedArgs ?? approval.args;
}

/** The hint for the call as it stands: its latest approved edit's, else the one it was asked with. */
export function currentHint(pause: Pause, approval: ApprovalRequest): string {
  return latestEdit(pause, approval.approvalId)?.editedHint ?? approval.hint;
}

/** hashArgs(currentArgs(pause, approval)): the hash a decision on it must name. */
export function currentArgsHash(pause: Pause, approval: ApprovalRequest): string {
  const edit = latestEdit(pause, approval.approvalId);
  return edit?.editedArgsHash ?? hashArgs(edit?.editedArgs ?? approval.args);
}

/** The hash of the arguments a vote approved: the edited ones for an edit, else the ones seen. */
function approvedHash(vote: Decision): string | undefined {
  return vote.editedArgsHash ?? vote.argsHash;
}

/**
 * The votes on `approval` that count: denials and answers in the tool's place always;
 * approvals only when they approved the current arguments (an edit makes earlier
 * approvals moot; they stay recorded). A vote recorded without a hash (before binding
 * was stored) counts while nobody edited the call.
 */
function countingVotes(pause: Pause, approval: ApprovalRequest): Decision[] {
  const votes = votesOn(pause, approval.approvalId);
  const edit = latestEdit(pause, approval.approvalId);
  if (!edit) return votes;
  const current = currentArgsHash(pause, approval);
  return votes.filter(
    (d) => !d.approved || d.response !== undefined || approvedHash(d) === current,
  );
}

/**
 * Whether `person` has voted on the approval `approvalId` of `pause`: themselves, or
 * through their out-of-office delegate (`onBehalfOf`). A person's vote counts once
 * either way, so a quorum is never met by one person and their delegate. A vote made
 * moot by someone else's later edit does not count: its author may vote on the edit.
 */
export function hasVoted(pause: Pause, approvalId: string, person: string): boolean {
  const approval = pause.approvals.find((a) => a.approvalId === approvalId);
  const votes = approval ? countingVotes(pause, approval) : votesOn(pause, approvalId);
  return votes.some((d) => d.decidedBy === person || d.onBehalfOf === person);
}

/**
 * How many distinct people must approve `approval` while `edit` is in force (none: the
 * model's call): 1 for an input, else its approvers' quorum, and at least 2 when the edit
 * needs one more approver (a raised amount).
 */
export function quorumUnder(
  approval: ApprovalRequest,
  edit: Pick<Decision, 'editNeedsApproval'> | undefined,
): number {
  if (approval.kind === 'input') return 1;
  const quorum = approversOf(approval).quorum;
  return edit?.editNeedsApproval ? Math.max(quorum, 2) : quorum;
}

/**
 * Who may decide `approval` as it stands among `decisions` (its pause's votes): its
 * approvers, with the quorum the edit in force asks (`quorumUnder`). Every view of an
 * approval (the API's `approvers`, a notification's, the terminal chat) shows these, so
 * none says one approver suffices after a raise made a second one necessary.
 */
export function approversInForce(
  decisions: readonly Decision[],
  approval: ApprovalRequest,
): Approvers {
  return {
    ...approversOf(approval),
    quorum: quorumUnder(approval, editInForce(decisions, approval)),
  };
}

/** How many distinct people must approve `approval`'s current arguments (`quorumUnder`). */
export function quorumOf(pause: Pause, approval: ApprovalRequest): number {
  return quorumUnder(approval, editInForce(pause.decisions, approval));
}

/**
 * The decision that settled `approval`: the first denial, the first answer in the tool's
 * place, or the approval that brought the distinct approvers of its current arguments to
 * its quorum; undefined while it still waits for people.
 */
export function settlingDecision(pause: Pause, approval: ApprovalRequest): Decision | undefined {
  // Nobody voted on it yet, as while it waits: nothing settles it (and nothing is counted).
  if (!pause.decisions.some((d) => d.approvalId === approval.approvalId)) return undefined;
  const votes = countingVotes(pause, approval);
  const final = votes.find((d) => !d.approved || d.response !== undefined);
  if (final) return final;
  const quorum = quorumOf(pause, approval);
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

/** How a settled approval's call is answered when the run goes on. */
export interface SettledAnswer {
  approval: ApprovalRequest;
  approved: boolean;
  /** The arguments it runs with instead of the model's (an approved edit). */
  editedArgs?: Record<string, unknown>;
  /** The answer given in the tool's place (the tool does not run). */
  response?: unknown;
  reason?: string;
}

/**
 * The answer to each settled approval of `pause`, by tool call id: approved or not, with
 * the edit it runs with, the answer given in the tool's place, or the denial's reason.
 */
export function settledAnswers(pause: Pause): Map<string, SettledAnswer> {
  const answers = new Map<string, SettledAnswer>();
  for (const approval of pause.approvals) {
    const settled = settlingDecision(pause, approval);
    if (!settled) continue;
    const edit = settled.approved ? latestEdit(pause, approval.approvalId) : undefined;
    answers.set(approval.toolCallId, {
      approval,
      approved: settled.approved,
      ...(edit?.editedArgs && { editedArgs: edit.editedArgs }),
      ...(settled.approved && settled.response !== undefined && { response: settled.response }),
      ...(settled.reason !== undefined && { reason: settled.reason }),
    });
  }
  return answers;
}
