import { randomUUID } from 'node:crypto';
import { createEvent, createEventActions, type Event, type Session } from '@google/adk';
import type { FunctionCall } from '@google/genai';
import { CONFIRMATION_CALL } from '../../agents/confirmation-call.js';
import type {
  ApprovalAnswer,
  ApprovalAwait,
  LinearApprovals,
} from '../../agents/wait-for-approval.js';
import { HoldpointError } from '../../core/errors.js';
import type { Pause } from '../../core/types.js';

/** Where a confirmation request made by `waitForApproval` names its tool call and await. */
export const AWAIT_METADATA = 'holdpointAwait';

interface AwaitMark {
  callId: string;
  index: number;
}

/** One `waitForApproval` waiting for a person: its request event, and the tool's await. */
export interface AskedAwait {
  /** The confirmation request, as ADK makes one for `toolContext.requestConfirmation()`. */
  event: Event;
  /** The session the tool runs in: the run's, or an `AgentTool` call's (stored with it). */
  session: Session;
  /** Its approval id: the request's function call id. */
  approvalId: string;
  callId: string;
  toolName: string;
  /**
   * Whether only this await waits in its segment, so the segment can wait for the
   * answer in place: its call was the model's only one, no parallel branch runs, and
   * it runs in the session's own agents (not inside an `AgentTool`).
   */
  alone: boolean;
  /** Hands the answer to the tool. */
  answer(answer: ApprovalAnswer): void;
}

/** Which tool call and await a confirmation request made by `waitForApproval` is for. */
export function awaitMark(event: Event): AwaitMark | undefined {
  const mark = event.customMetadata?.[AWAIT_METADATA] as Partial<AwaitMark> | undefined;
  return typeof mark?.callId === 'string' && typeof mark.index === 'number'
    ? { callId: mark.callId, index: mark.index }
    : undefined;
}

function functionCalls(event: Event): FunctionCall[] {
  return (event.content?.parts ?? []).flatMap((part) =>
    part.functionCall ? [part.functionCall] : [],
  );
}

/** A confirmation answer as the run's history holds it (see `answerPart`). */
function asAnswer(response: Record<string, unknown> | undefined): ApprovalAnswer {
  const answer: ApprovalAnswer = { approved: response?.confirmed === true };
  if (typeof response?.reason === 'string') answer.reason = response.reason;
  if (response?.payload !== undefined) answer.payload = response.payload;
  if (typeof response?.decidedBy === 'string') answer.decidedBy = response.decidedBy;
  return answer;
}

/**
 * The inline approvals (`waitForApproval`) of one run segment. Answers are read from
 * the session's history: each await's request is a confirmation request marked with
 * its tool call and index, and its answer the user's response to that request — the
 * same message every resume sends. An await with no answer is asked: the segment
 * stores the pause (`takeAsked`), then hands the answer over in place or leaves the
 * tool's promise unsettled, to be entered again on resume.
 */
export class LinearAwaits implements LinearApprovals {
  private asked: AskedAwait[] = [];
  private wake?: () => void;

  constructor(private readonly session: Session) {}

  answerOf(
    callId: string,
    index: number,
    events: readonly Event[] = this.session.events,
  ): ApprovalAnswer | undefined {
    const requests = new Set<string>();
    for (const event of events) {
      const mark = awaitMark(event);
      if (mark?.callId !== callId || mark.index !== index) continue;
      for (const call of functionCalls(event)) if (call.id) requests.add(call.id);
    }
    for (const event of [...events].reverse()) {
      if (event.author !== 'user') continue;
      for (const part of event.content?.parts ?? []) {
        const response = part.functionResponse;
        if (response?.name === CONFIRMATION_CALL && response.id && requests.has(response.id)) {
          return asAnswer(response.response);
        }
      }
    }
    return undefined;
  }

  ask(question: ApprovalAwait): Promise<ApprovalAnswer> {
    const { toolContext, callId, index } = question;
    const invocation = toolContext.invocationContext;
    const { session } = invocation;
    const callEvent = [...session.events]
      .reverse()
      .find((event) => functionCalls(event).some((call) => call.id === callId));
    const call = callEvent && functionCalls(callEvent).find((c) => c.id === callId);
    if (!callEvent || !call) {
      throw new HoldpointError('INTERNAL', `No function call ${callId} in the session to approve.`);
    }
    const approvalId = `adk-${randomUUID()}`;
    const confirmation = { hint: question.hint ?? '', confirmed: false, payload: question.payload };
    const event = createEvent({
      invocationId: invocation.invocationId,
      author: invocation.agent?.name ?? '',
      branch: invocation.branch,
      content: {
        role: 'user',
        parts: [
          {
            functionCall: {
              id: approvalId,
              name: CONFIRMATION_CALL,
              args: { originalFunctionCall: call, toolConfirmation: confirmation },
            },
          },
        ],
      },
      actions: createEventActions({ requestedToolConfirmations: { [callId]: confirmation } }),
      longRunningToolIds: [approvalId],
      customMetadata: { [AWAIT_METADATA]: { callId, index } },
    });
    return new Promise<ApprovalAnswer>((resolve) => {
      this.asked.push({
        event,
        session,
        approvalId,
        callId,
        toolName: call.name ?? '',
        alone:
          session === this.session && !invocation.branch && functionCalls(callEvent).length === 1,
        answer: resolve,
      });
      this.wake?.();
    });
  }

  /** Resolves once some await is asked (at once when one waits already). */
  whenAsked(): Promise<void> {
    if (this.asked.length > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve();
      };
    });
  }

  /** The awaits asked since the last take. */
  takeAsked(): AskedAwait[] {
    const asked = this.asked;
    this.asked = [];
    return asked;
  }
}

/**
 * `pause` without the approvals that answer a tool's inline awaits: those calls are not
 * "approved calls about to run" (marked started, asked about again after a crash), but
 * tools entered again on resume, their effects in `once()`.
 */
export function withoutAwaits(pause: Pause | undefined): Pause | undefined {
  return (
    pause && { ...pause, approvals: pause.approvals.filter((a) => a.awaitIndex === undefined) }
  );
}

/** The user's answer to an await's request, as the resume message of a pause carries it. */
export function answerEvent(
  invocationId: string,
  approvalId: string,
  answer: ApprovalAnswer,
): Event {
  const { approved, ...rest } = answer;
  return createEvent({
    invocationId,
    author: 'user',
    content: {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: approvalId,
            name: CONFIRMATION_CALL,
            response: { confirmed: approved, ...rest },
          },
        },
      ],
    },
  });
}
