import type { Content, Part } from '@google/genai';
import { CONFIRMATION_CALL } from '../../agents/confirmation-call.js';
import type { CallAnswer } from '../../agents/decision-answers.js';
import { HoldpointError } from '../../core/errors.js';
import type { ApprovalRequest, Decision, Pause } from '../../core/types.js';
import {
  settledAnswers,
  settledDecisions,
  settlingDecision,
} from '../../session/decision/settlement.js';

/** What the user sends to a segment, in order: at least one message. */
export type UserMessages = [Content, ...Content[]];

/** The function response that carries the decision that settled `approval` back into ADK. */
function answerPart(approval: ApprovalRequest, decision: Decision | undefined): Part {
  const approved = decision?.approved === true;
  if (approval.kind === 'confirmation') {
    // ADK reads `confirmed` and `payload`; who decided and why are for a tool's
    // `waitForApproval`, which reads its earlier answers from these messages.
    const response: Record<string, unknown> = { confirmed: approved, payload: decision?.payload };
    if (decision?.reason !== undefined) response.reason = decision.reason;
    if (decision) response.decidedBy = decision.decidedBy;
    return { functionResponse: { id: approval.approvalId, name: CONFIRMATION_CALL, response } };
  }
  // An input's value, given as the payload or as the answer in the tool's place.
  const value = decision?.payload ?? decision?.response;
  const response: Record<string, unknown> = approved
    ? typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value }
    : { error: 'rejected', reason: decision?.reason ?? 'The person declined.' };
  return { functionResponse: { id: approval.toolCallId, name: approval.toolName, response } };
}

/**
 * The user messages that answer every approval of a decided pause: the inputs'
 * values, then the confirmations' answers, each kind in a message of its own. ADK
 * keeps any event that answers a confirmation out of the model's context, so an
 * input's value sent beside one would never reach the model.
 */
export function resumeMessages(pause: Pause): UserMessages {
  const answers = (kind: ApprovalRequest['kind']) =>
    pause.approvals
      .filter((a) => a.kind === kind)
      .map((a) => answerPart(a, settlingDecision(pause, a)));
  const [first, ...rest] = [answers('input'), answers('confirmation')]
    .filter((parts) => parts.length > 0)
    .map((parts): Content => ({ role: 'user', parts }));
  if (!first) throw new HoldpointError('INTERNAL', `Pause ${pause.pauseId} holds no approvals.`);
  return [first, ...rest];
}

/** Tool calls a person rejected in `pause`: their ADK responses mean "denied", not "failed". */
export function deniedCalls(pause: Pause | undefined): Set<string> {
  const settled = pause ? settledDecisions(pause) : [];
  const rejected = new Set(settled.filter((d) => !d.approved).map((d) => d.approvalId));
  return new Set(
    pause?.approvals.filter((a) => rejected.has(a.approvalId)).map((a) => a.toolCallId) ?? [],
  );
}

/** Tool calls a person approved in `pause` (confirmations): they run first in the segment. */
export function approvedCalls(pause: Pause | undefined): Set<string> {
  const settled = pause ? settledDecisions(pause) : [];
  const approved = new Set(settled.filter((d) => d.approved).map((d) => d.approvalId));
  return new Set(
    pause?.approvals
      .filter((a) => a.kind === 'confirmation' && approved.has(a.approvalId))
      .map((a) => a.toolCallId) ?? [],
  );
}

/**
 * How the resumed run applies `pause`'s answers beyond yes and no, by tool call id: the
 * confirmations approved with an edit or answered in the tool's place, and those
 * rejected with a reason. A tool that awaits inline is already running: none for it.
 */
export function callAnswers(pause: Pause | undefined): Map<string, CallAnswer> {
  const answers = new Map<string, CallAnswer>();
  for (const [callId, answer] of pause ? settledAnswers(pause) : []) {
    const { approval } = answer;
    if (approval.kind !== 'confirmation' || approval.awaitIndex !== undefined) continue;
    if (answer.response !== undefined) answers.set(callId, { response: answer.response });
    else if (answer.editedArgs) answers.set(callId, { editedArgs: answer.editedArgs });
    else if (!answer.approved && answer.reason !== undefined) {
      answers.set(callId, { rejectedWith: answer.reason });
    }
  }
  return answers;
}
