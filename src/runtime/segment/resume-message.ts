import type { Content, Part } from '@google/genai';
import type { ApprovalRequest, Decision, Pause } from '../../core/types.js';
import { CONFIRMATION_CALL } from './segment-collector.js';

/** The function response that carries a person's decision back into ADK. */
function answerPart(approval: ApprovalRequest, decisions: Decision[]): Part {
  const decision = decisions.find((d) => d.approvalId === approval.approvalId);
  const approved = decision?.approved === true;
  if (approval.kind === 'confirmation') {
    return {
      functionResponse: {
        id: approval.approvalId,
        name: CONFIRMATION_CALL,
        response: { confirmed: approved, payload: decision?.payload },
      },
    };
  }
  const value = decision?.payload;
  const response: Record<string, unknown> = approved
    ? typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value }
    : { error: 'rejected', reason: decision?.reason ?? 'The person declined.' };
  return { functionResponse: { id: approval.toolCallId, name: approval.toolName, response } };
}

/** The one user message that answers every approval of a decided pause. */
export function resumeMessage(pause: Pause): Content {
  return { role: 'user', parts: pause.approvals.map((a) => answerPart(a, pause.decisions)) };
}

/** Tool calls a person rejected in `pause`: their ADK responses mean "denied", not "failed". */
export function deniedCalls(pause: Pause | undefined): Set<string> {
  const rejected = new Set(pause?.decisions.filter((d) => !d.approved).map((d) => d.approvalId));
  return new Set(
    pause?.approvals.filter((a) => rejected.has(a.approvalId)).map((a) => a.toolCallId) ?? [],
  );
}
