import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import type { ApprovalRequest } from '../../core/types.js';
import { messageText, validate } from '../../core/validate.js';
import type { DecisionInput } from '../../runtime/requests.js';
import type { ChatDecisionDetails, ChatMessage, ChatRequestBody } from './chat-request.js';

/** What a posted chat asks for: a new user message, or answers to the pending approvals. */
export type ChatIntent =
  | { kind: 'message'; text: string; sessionId?: string }
  | { kind: 'answers'; sessionId: string; messageId: string };

/**
 * What a posted chat asks for, as read from the body alone: a ChatIntent, or answers
 * that name no session (seed 001's approval message sent by itself, with no history
 * and no `sessionId`), known by the approvals they answer until their session is found
 * (`placedIntent`).
 */
export type PostedIntent =
  | ChatIntent
  | { kind: 'answers-by-approval'; approvalIds: string[]; messageId: string };

interface ToolPart {
  type: string;
  toolCallId?: string;
  state?: string;
  output?: unknown;
  errorText?: string;
  approval?: { id?: string; approved?: boolean; reason?: string };
}

function toolParts(message: ChatMessage): ToolPart[] {
  return message.parts.filter(
    (part) => part.type.startsWith('tool-') || part.type === 'dynamic-tool',
  ) as ToolPart[];
}

/** The session a chat belongs to: given in the body, or in an assistant message's metadata. */
export function chatSessionId(body: ChatRequestBody): string | undefined {
  if (body.sessionId) return body.sessionId;
  for (const message of [...body.messages].reverse()) {
    const metadata = message.metadata as { sessionId?: unknown } | undefined;
    if (message.role === 'assistant' && typeof metadata?.sessionId === 'string') {
      return metadata.sessionId;
    }
  }
  return undefined;
}

/** The states in which a tool part answers a pending approval (see answersIn). */
const ANSWERING = new Set(['approval-responded', 'output-available', 'output-error']);

/** Whether `message` carries answers to approvals (tool parts in an answering state). */
function answers(message: ChatMessage): boolean {
  return toolParts(message).some((part) => part.state !== undefined && ANSWERING.has(part.state));
}

/** The id of the assistant message a user message's answers continue: the latest one before it. */
function continuedMessageId(body: ChatRequestBody): string {
  const assistant = body.messages
    .slice(0, -1)
    .reverse()
    .find((m) => m.role === 'assistant');
  return assistant?.id ?? `msg-${randomUUID()}`;
}

/**
 * Reads what the last posted message asks for; undefined when it asks for nothing.
 * Answers come in an assistant message (the AI SDK's own shape: its tool parts in
 * `approval-responded`, `output-available` or `output-error`) or in a user message
 * (seed 001's ADR: `role: "user"`, a `tool-adk_request_confirmation` part in
 * `approval-responded`); either way they continue the assistant message that asked.
 * Throws VALIDATION_FAILED, naming the limit, for text out of bounds, and for a user
 * message that both answers and asks (answers are checked as the decisions they become).
 */
export function chatIntent(body: ChatRequestBody): ChatIntent | undefined {
  const last = body.messages.at(-1);
  const sessionId = chatSessionId(body);
  if (last?.role === 'user') {
    const text = last.parts
      .map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
      .join('')
      .trim();
    if (answers(last)) {
      if (text) {
        throw new HoldpointError(
          'VALIDATION_FAILED',
          'A message either answers approvals or asks something new, not both.',
        );
      }
      return sessionId
        ? { kind: 'answers', sessionId, messageId: continuedMessageId(body) }
        : undefined;
    }
    return text
      ? {
          kind: 'message',
          text: validate(z.object({ text: messageText }), { text }).text,
          sessionId,
        }
      : undefined;
  }
  if (last?.role === 'assistant' && sessionId) {
    return { kind: 'answers', sessionId, messageId: last.id ?? `msg-${randomUUID()}` };
  }
  return undefined;
}

/**
 * What the body asks for: chatIntent's reading, else, for a last message that answers
 * approvals in a session the body does not name, those answers known by the approvals
 * they name (the session is theirs). Undefined when it asks for nothing. Throws as
 * chatIntent does.
 */
export function postedIntent(body: ChatRequestBody): PostedIntent | undefined {
  const intent = chatIntent(body);
  const last = body.messages.at(-1);
  if (intent || !last || last.role === 'system') return intent;
  const responses = toolParts(last).flatMap((part) => approvalResponse(part) ?? []);
  const approvalIds = [...new Set(responses.map((d) => d.approvalId))];
  if (approvalIds.length === 0) return undefined;
  const messageId =
    last.role === 'assistant' && last.id !== undefined ? last.id : continuedMessageId(body);
  return { kind: 'answers-by-approval', approvalIds, messageId };
}

/** The decision a tool part in `approval-responded` carries (`addToolApprovalResponse`'s shape). */
function approvalResponse(part: ToolPart): DecisionInput | undefined {
  const { approval } = part;
  if (part.state !== 'approval-responded' || !approval?.id) return undefined;
  if (typeof approval.approved !== 'boolean') return undefined;
  return {
    approvalId: approval.id,
    approved: approval.approved,
    ...(approval.reason === undefined ? {} : { reason: approval.reason }),
  };
}

/**
 * The decisions a message carries: approval responses
 * (`addToolApprovalResponse`) and tool outputs for input requests
 * (`addToolOutput`), each with the body's `details` for its approval id (edited
 * arguments, an answer in the tool's place, a grant, the hash seen). `fresh` answer
 * approvals still pending; `stale` name approvals that are not (decided, expired or
 * unknown), for a precise error. VALIDATION_FAILED for details of an approval the
 * message does not answer: they would otherwise be dropped unseen.
 */
export function answersIn(
  message: ChatMessage,
  pending: ApprovalRequest[],
  details: Record<string, ChatDecisionDetails> = {},
): { fresh: DecisionInput[]; stale: DecisionInput[] } {
  const answered = answersOnly(message, pending);
  const withDetails = (d: DecisionInput): DecisionInput => ({ ...d, ...details[d.approvalId] });
  const named = new Set([...answered.fresh, ...answered.stale].map((d) => d.approvalId));
  const unanswered = Object.keys(details).find((id) => !named.has(id));
  if (unanswered !== undefined) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `decisions.${unanswered}: the last message does not answer approval ${unanswered}`,
      { field: `decisions.${unanswered}`, approval_id: unanswered },
    );
  }
  return { fresh: answered.fresh.map(withDetails), stale: answered.stale.map(withDetails) };
}

/** The decisions the message's tool parts carry, as the AI SDK shapes them. */
function answersOnly(
  message: ChatMessage,
  pending: ApprovalRequest[],
): { fresh: DecisionInput[]; stale: DecisionInput[] } {
  const fresh: DecisionInput[] = [];
  const stale: DecisionInput[] = [];
  const pendingIds = new Set(pending.map((a) => a.approvalId));
  for (const part of toolParts(message)) {
    const decision = approvalResponse(part);
    if (decision) {
      (pendingIds.has(decision.approvalId) ? fresh : stale).push(decision);
      continue;
    }
    const input = pending.find((a) => a.kind === 'input' && a.toolCallId === part.toolCallId);
    if (input && part.state === 'output-available') {
      fresh.push({ approvalId: input.approvalId, approved: true, payload: part.output });
    } else if (input && part.state === 'output-error') {
      fresh.push({ approvalId: input.approvalId, approved: false, reason: part.errorText });
    }
  }
  return { fresh, stale };
}
