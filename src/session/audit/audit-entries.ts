import { hashArgs, hashJson } from '../../core/hash.js';
import type {
  ApprovalRequest,
  AuditAction,
  AuditEntry,
  Decision,
  Pause,
} from '../../core/types.js';
import { settlingDecision } from '../decision/settlement.js';

/** The audit line for one approval request of a pause. */
export function approvalAudit(
  pause: Pick<Pause, 'sessionId' | 'invocationId'>,
  approval: ApprovalRequest,
  action: AuditAction,
  actor: string,
  at: number,
  extra: Pick<
    AuditEntry,
    | 'approved'
    | 'reason'
    | 'payloadHash'
    | 'unnamedPause'
    | 'channel'
    | 'onBehalfOf'
    | 'to'
    | 'argsHash'
    | 'editedArgsHash'
    | 'responseHash'
    | 'grantId'
    | 'grantScope'
    | 'grantUntil'
  > = {},
): AuditEntry {
  return {
    at,
    action,
    sessionId: pause.sessionId,
    invocationId: pause.invocationId,
    actor,
    approvalId: approval.approvalId,
    toolName: approval.toolName,
    // Hashed only when `extra` does not name the hash already (a decision names what its decider saw).
    argsHash: 'argsHash' in extra ? extra.argsHash : hashArgs(approval.args),
    ...extra,
  };
}

/**
 * The `decided` lines of a batch of decisions on a pause, each with the arguments' hash
 * its decider saw, and an edit's or an answer's hash; a payload is recorded by its hash. `unnamedPause` marks decisions that named no pause (they decided the current one).
 */
export function decisionAudit(
  pause: Pause,
  decisions: Decision[],
  unnamedPause = false,
): AuditEntry[] {
  return decisions.flatMap((decision) => {
    const approval = pause.approvals.find((a) => a.approvalId === decision.approvalId);
    if (!approval) return [];
    return [
      approvalAudit(pause, approval, 'decided', decision.decidedBy, decision.at, {
        approved: decision.approved,
        reason: decision.reason,
        payloadHash: decision.payload === undefined ? undefined : hashJson(decision.payload),
        // What the person saw (the call's arguments then), and what they set or answered.
        ...(decision.argsHash === undefined ? {} : { argsHash: decision.argsHash }),
        ...(decision.editedArgsHash === undefined
          ? {}
          : { editedArgsHash: decision.editedArgsHash }),
        ...(decision.response === undefined ? {} : { responseHash: hashJson(decision.response) }),
        ...(unnamedPause ? { unnamedPause: true as const } : {}),
        ...(decision.channel === undefined ? {} : { channel: decision.channel }),
        ...(decision.onBehalfOf === undefined ? {} : { onBehalfOf: decision.onBehalfOf }),
      }),
    ];
  });
}

/** One line per still-undecided approval, e.g. when a pause expires or is cancelled. */
export function undecidedAudit(
  pause: Pause,
  action: 'expired' | 'cancelled',
  actor: string,
  at: number,
  reason?: string,
): AuditEntry[] {
  return pause.approvals
    .filter((a) => !settlingDecision(pause, a))
    .map((a) => approvalAudit(pause, a, action, actor, at, { reason }));
}
