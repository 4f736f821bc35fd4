import { type StoreChoice, streamServer } from './scenarios.js';
import { sseTwoTurnChat } from './sse-chat.js';
import { measureStreams, type StreamPlan, type StreamSample } from './stream-measure.js';
import { wsContinuousChats } from './ws-chat.js';

/**
 * Starts a server with `choice` as its store, streams rounds of concurrent chats
 * to it over SSE (two turns) or WebSocket (continuous, one socket per chat in
 * flight), and releases sockets and server whatever happens.
 */
export async function streamOnServer(
  name: string,
  transport: 'sse' | 'ws',
  choice: StoreChoice,
  plan: StreamPlan,
): Promise<StreamSample> {
  const server = await streamServer(choice);
  const baseUrl = `http://127.0.0.1:${server.port}`;
  try {
    if (transport === 'sse') return await measureStreams(name, sseTwoTurnChat(baseUrl), plan);
    const sockets = await wsContinuousChats(baseUrl, plan.concurrency);
    try {
      return await measureStreams(name, sockets.chat, plan);
    } finally {
      sockets.close();
    }
  } finally {
    await server.close();
  }
}
