import type { Interrupt } from '@ag-ui/core';
import { z } from 'zod';
import type { ApprovalRequest } from '../../core/types.js';
import type { DecisionInput } from '../../runtime/requests.js';
import { offeredApproval } from '../offered-approval.js';
import { interruptAnswer, type ResumeEntry } from './run-input.js';

/** Where the decisions this door records say they came from (the audit line names it). */
export const AG_UI_CHANNEL = 'ag-ui';

/** The JSON Schema of an interrupt's answer, derived once from the runtime's decision fields. */
const ANSWER_SCHEMA = z.toJSONSchema(interruptAnswer, { io: 'input', unrepresentable: 'any' });

/**
 * A pending approval as an AG-UI interrupt: its id is the approval's, `toolCallId` the
 * call it holds, `message` the hint a person reads; `responseSchema` the answer
 * expected; `metadata.holdpoint` the approval as every protocol offers it (the tool, its
 * arguments and their hash, who may decide, what the tool's policy lets a decider do).
 */
export function interruptOf(approval: ApprovalRequest): Interrupt {
  return {
    id: approval.approvalId,
    reason: approval.kind === 'input' ? 'input_required' : 'tool_approval',
    message: approval.hint,
    toolCallId: approval.toolCallId,
    responseSchema: ANSWER_SCHEMA,
    expiresAt: new Date(approval.expiresAt).toISOString(),
    metadata: { holdpoint: offeredApproval(approval) },
  };
}

/** Why a rejection made by abandoning an interrupt was made. */
export const CANCELLED_REASON = 'Cancelled in the AG-UI client.';

/**
 * The decisions a run's resume entries make: a `resolved` entry is its answer; a
 * `cancelled` one rejects its approval while it is pending (`pending`), and asks
 * nothing of an approval no longer pending (decided elsewhere, expired): there is
 * nothing left to abandon.
 */
export function decisionsOf(entries: ResumeEntry[], pending: ReadonlySet<string>): DecisionInput[] {
  return entries.flatMap((entry): DecisionInput[] => {
    if (entry.status === 'resolved') {
      return [{ approvalId: entry.interruptId, ...entry.payload }];
    }
    if (!pending.has(entry.interruptId)) return [];
    return [{ approvalId: entry.interruptId, approved: false, reason: CANCELLED_REASON }];
  });
}
