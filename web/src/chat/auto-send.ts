import {
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
} from 'ai';
import type { ChatMessage } from '../api/api-types';

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
