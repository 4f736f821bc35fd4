import type { ApprovalRequest, Decision } from './types.js';

/**
 * The approved edit in force on an approval: the latest approval of `approvalId` among
 * `decisions` that changed the call's arguments; undefined while the call stands as the
 * model made it.
 */
export function editInForce(decisions: Decision[], approvalId: string): Decision | undefined {
  for (let i = decisions.length - 1; i >= 0; i--) {
    const d = decisions[i];
    if (d?.approvalId === approvalId && d.approved && d.editedArgs !== undefined) return d;
  }
  return undefined;
}

/**
 * The arguments an approval's call has now (what a decider sees and names by hash): the
 * latest approved edit's, else the model's.
 */
export function currentArgs(
  approval: ApprovalRequest,
  decisions: Decision[],
): Record<string, unknown> {
  return editInForce(decisions, approval.approvalId)?.editedArgs ?? approval.args;
}
