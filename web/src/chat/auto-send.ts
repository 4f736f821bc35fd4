import {
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
} from 'ai';
import type { ChatMessage } from 'holdpoint/react';
import { toolPartsOf } from './find-pending';

/**
 * Two-turn (SSE) mode: send the assistant message back once every approval of the step is
 * answered — confirmations with approval responses, input requests with tool outputs. Tool
 * outputs only count while the run is paused: a completed turn whose tools ran on the server
 * has outputs too, and must not be sent again.
 */
export function answersComplete(options: { messages: ChatMessage[] }): boolean {
  if (lastAssistantMessageIsCompleteWithApprovalResponses(options)) return true;
  const last = options.messages.at(-1);
  return (
    last?.metadata?.status === 'paused' && lastAssistantMessageIsCompleteWithToolCalls(options)
  );
}

/** The approvals the last message answers with approval responses, by id. */
export function approvalResponsesIn(messages: ChatMessage[]): string[] {
  const last = messages.at(-1);
  if (!last) return [];
  return toolPartsOf(last)
    .filter((part) => part.state === 'approval-responded' && part.approval)
    .map((part) => part.approval?.id ?? '');
}

/**
 * `answersComplete`, but never for answers already `sent`: a turn whose answer was recorded
 * while the pause still waits (an edit that needs another approver, a quorum not yet met)
 * ends with the same answered message, which the AI SDK would otherwise send again.
 */
export function answersCompleteOnce(
  sent: ReadonlySet<string>,
): (options: { messages: ChatMessage[] }) => boolean {
  return (options) => {
    if (!answersComplete(options)) return false;
    const answered = approvalResponsesIn(options.messages);
    return answered.length === 0 || answered.some((id) => !sent.has(id));
  };
}
