import { performance } from 'node:perf_hooks';
import type { UIMessage, UIMessageChunk } from 'ai';
import type WebSocket from 'ws';
import { ChatSocketClient } from '../test/support/chat-socket-client.js';
import { APP, IMAGES, QUERY, USER } from './holdpoint-cycles.js';
import type { ChatTiming, StreamChat } from './stream-measure.js';

/** Chats over WebSocket, and the sockets to close once they have been timed. */
export interface SocketChats {
  chat: StreamChat;
  close(): void;
}

/** Calls `refused` if the server answers the decision for `approvalId` with `decision-error`. */
function watchDecision(
  socket: WebSocket,
  approvalId: string,
  until: AbortSignal,
  refused: (error: Error) => void,
): void {
  const onMessage = (data: WebSocket.RawData) => {
    const frame = JSON.parse(String(data)) as { type?: string; approvalId?: string };
    if (frame.type === 'decision-error' && frame.approvalId === approvalId) {
      refused(new Error(`decision refused: ${String(data)}`));
    }
  };
  socket.on('message', onMessage);
  until.addEventListener('abort', () => socket.off('message', onMessage), { once: true });
}

/** One chat on `client`: the `send` frame, then a decision frame once the request streams. */
async function continuousChat(
  client: ChatSocketClient,
  chatId: string,
  signal: AbortSignal,
): Promise<ChatTiming> {
  const finished = new AbortController();
  const until = AbortSignal.any([signal, finished.signal]);
  const marks: { first?: number; request?: number; decided?: number; output?: number } = {};
  let artifacts: number | undefined;
  let refuse: (error: Error) => void = () => {};
  const refusal = new Promise<never>((_, reject) => {
    refuse = reject;
  });
  const onChunk = (chunk: UIMessageChunk) => {
    const at = performance.now();
    marks.first ??= at;
    if (chunk.type === 'tool-approval-request' && marks.request === undefined) {
      marks.request = at;
      watchDecision(client.socket, chunk.approvalId, until, refuse);
      marks.decided = performance.now();
      client.socket.send(
        JSON.stringify({ type: 'decision', approvalId: chunk.approvalId, approved: true }),
      );
    } else if (chunk.type === 'tool-output-available' && marks.output === undefined) {
      marks.output = at;
      artifacts = (chunk.output as { artifacts?: unknown[] } | undefined)?.artifacts?.length;
    }
  };
  // A stalled chat is aborted on the server too, so it stops streaming to this socket.
  signal.addEventListener(
    'abort',
    () => client.socket.send(JSON.stringify({ type: 'abort', requestId: chatId })),
    { once: true },
  );
  const question: UIMessage = {
    id: `${chatId}-u1`,
    role: 'user',
    parts: [{ type: 'text', text: QUERY }],
  };
  const sent = performance.now();
  try {
    const turn = await Promise.race([
      client.turn(chatId, { id: chatId, messages: [question], body: { app: APP } }, onChunk),
      refusal,
    ]);
    if (turn.ended !== 'end') throw new Error(`chat ${chatId} ended with ${turn.errorText}`);
    const finish = turn.chunks.at(-1);
    if (finish?.type !== 'finish' || finish.finishReason !== 'stop') {
      throw new Error(`chat ${chatId} finished with ${JSON.stringify(finish)}, expected stop`);
    }
    if (artifacts !== IMAGES) {
      throw new Error(`chat ${chatId} produced ${artifacts ?? 0} images, expected ${IMAGES}`);
    }
    const { first, request, decided, output } = marks;
    if (first === undefined || request === undefined || decided === undefined || !output) {
      throw new Error(`chat ${chatId} streamed no approval request or no tool output`);
    }
    return {
      firstChunkMs: first - sent,
      approvalRequestMs: request - sent,
      decisionToOutputMs: output - decided,
    };
  } finally {
    finished.abort();
  }
}

/**
 * Continuous chats over `/api/chat/ws` (the AI SDK's WebSocketChatTransport
 * frames), one socket per concurrent chat, opened once and reused round after
 * round: the stream stays open at the approval request, the decision goes out
 * as a `decision` frame on the same socket, and the tool output follows on the
 * same stream.
 */
export async function wsContinuousChats(baseUrl: string, sockets: number): Promise<SocketChats> {
  const url = `${baseUrl.replace(/^http/, 'ws')}/api/chat/ws?user=${USER}`;
  const clients = await Promise.all(
    Array.from({ length: sockets }, () => ChatSocketClient.connect(url)),
  );
  return {
    chat: (chatId, slot, signal) =>
      continuousChat(clients[slot % clients.length] as ChatSocketClient, chatId, signal),
    close: () => {
      for (const client of clients) client.close();
    },
  };
}
