import { type ChatTransport, DefaultChatTransport, WebSocketChatTransport } from 'ai';
import type { ChatMessage } from '../api/api-types';
import type { ConnectionMode } from './chat-settings';

/** Holdpoint's fields in every chat request: the app, the caller, and the session once known. */
export interface ChatBody {
  app: string;
  userId: string;
  sessionId?: string;
}

/** The AI SDK transport for a connection mode; `body` is read at each request. */
export function createTransport(
  mode: ConnectionMode,
  body: () => ChatBody,
): ChatTransport<ChatMessage> & { close?: () => void } {
  if (mode === 'ws') return new WebSocketChatTransport<ChatMessage>({ url: '/api/chat/ws', body });
  return new DefaultChatTransport<ChatMessage>({ api: '/api/chat', body });
}
