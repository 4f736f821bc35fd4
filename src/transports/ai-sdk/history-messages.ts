import { readUIMessageStream, type UIMessageChunk } from 'ai';
import type { HistoryTurn } from '../../runtime/queries/session-history.js';
import type { SessionView } from '../../runtime/queries/session-view.js';
import type { ChatMessageMetadata } from './chat-metadata.js';
import type { HoldpointUIMessage } from './chat-stream.js';
import { UIChunkMapper } from './ui-chunk-mapper.js';

/** Replays chunks into the UI message `useChat` would hold after receiving them. */
async function materialize(
  chunks: UIMessageChunk<ChatMessageMetadata>[],
): Promise<HoldpointUIMessage> {
  const stream = new ReadableStream<UIMessageChunk<ChatMessageMetadata>>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: HoldpointUIMessage | undefined;
  for await (const m of readUIMessageStream<HoldpointUIMessage>({ stream })) message = m;
  if (!message) throw new Error('no message in replayed chunks');
  return message;
}

/**
 * A session's conversation as AI SDK UI messages — the same parts and states a
 * live stream produces (rendered by the same chunk mapping), so a reloaded page
 * shows exactly what it showed, including an approval still waiting.
 */
export async function historyMessages(
  view: SessionView,
  turns: HistoryTurn[],
): Promise<HoldpointUIMessage[]> {
  const messages: HoldpointUIMessage[] = [];
  for (const [index, turn] of turns.entries()) {
    messages.push({ id: turn.id, role: 'user', parts: [{ type: 'text', text: turn.text }] });
    const mapper = new UIChunkMapper('continuous');
    const last = index === turns.length - 1;
    const metadata: ChatMessageMetadata = {
      sessionId: view.meta.sessionId,
      invocationId: last ? (view.meta.invocationId ?? '') : '',
      app: view.meta.app,
      status: last ? lastStatus(view) : 'completed',
      ...(last && view.pause?.status === 'pending'
        ? { expiresAt: new Date(view.pause.expiresAt).toISOString() }
        : {}),
    };
    const chunks: UIMessageChunk<ChatMessageMetadata>[] = [
      { type: 'start', messageId: `msg-${turn.id}`, messageMetadata: metadata },
      { type: 'start-step' },
      ...turn.events.flatMap((event) => mapper.map(event)),
      { type: 'finish-step' },
      { type: 'finish', messageMetadata: metadata },
    ];
    messages.push(await materialize(chunks));
  }
  return messages;
}

function lastStatus(view: SessionView): ChatMessageMetadata['status'] {
  if (view.meta.status === 'paused') return 'paused';
  if (view.meta.status === 'running') return 'running';
  const run = view.run?.status;
  return run === 'failed' || run === 'cancelled' || run === 'expired' ? run : 'completed';
}
