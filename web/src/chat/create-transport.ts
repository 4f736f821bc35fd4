import { type ChatTransport, DefaultChatTransport, WebSocketChatTransport } from 'ai';
import type { ChatDecision, ChatMessage } from 'holdpoint/react';
import type { ConnectionMode } from './chat-settings';

/** Holdpoint's fields in every chat request: the app, the caller, and the session once known. */
export interface ChatBody {
  app: string;
  userId: string;
  sessionId?: string;
}

/**
 * The AI SDK transport for a connection mode; `body` is read at each request. Over SSE,
 * `decisions` gives, for the messages about to be sent, what their approval answers carry
 * beyond yes, no and a reason (the body's `decisions`, by approval id); none: nothing.
 */
export function createTransport(
  mode: ConnectionMode,
  body: () => ChatBody,
  decisions: (messages: ChatMessage[]) => Record<string, ChatDecision> | undefined = () =>
    undefined,
): ChatTransport<ChatMessage> & { close?: () => void } {
  if (mode === 'ws') return new WebSocketChatTransport<ChatMessage>({ url: '/api/chat/ws', body });
  return new DefaultChatTransport<ChatMessage>({
    api: '/api/chat',
    body,
    prepareSendMessagesRequest: ({ id, messages, body: resolved, trigger, messageId }) => {
      const details = decisions(messages);
      return {
        body: {
          ...resolved,
          id,
          messages,
          trigger,
          messageId,
          ...(details ? { decisions: details } : {}),
        },
      };
    },
  });
}
