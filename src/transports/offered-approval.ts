import { hashArgs } from '../core/hash.js';
import type { ApprovalRequest } from '../core/types.js';

/**
 * A pending approval as the protocols (AG-UI's interrupts, A2A's input-required tasks)
 * offer it to a client: its id, what it asks (the hint a person reads), the tool and its
 * arguments with their hash (what an edit names), who may decide (the tool's policy),
 * what a decider may do besides yes and no, and when it stops counting.
 */
export function offeredApproval(approval: ApprovalRequest) {
  return {
    approvalId: approval.approvalId,
    kind: approval.kind,
    hint: approval.hint,
    tool: approval.toolName,
    toolCallId: approval.toolCallId,
    args: approval.args,
    argsHash: hashArgs(approval.args),
    expiresAt: new Date(approval.expiresAt).toISOString(),
    ...(approval.payload === undefined ? {} : { payload: approval.payload }),
    ...(approval.approvers ? { approvers: approval.approvers } : {}),
    ...(approval.decisionPolicy ? { decisionPolicy: approval.decisionPolicy } : {}),
    ...(approval.mayHaveRun ? { mayHaveRun: true } : {}),
  };
}
