import { performance } from 'node:perf_hooks';
import type { UIMessage, UIMessageChunk } from 'ai';
import { finalMessage, parseSse } from '../test/support/ui-stream.js';
import { APP, IMAGES, QUERY, USER } from './holdpoint-cycles.js';
import type { StreamChat } from './stream-measure.js';

/** One chunk and when it arrived (performance.now()). */
interface Arrival {
  chunk: UIMessageChunk;
  at: number;
}

/** A tool part as far as the bench needs to see it. */
type ToolPart = { toolCallId?: string; approval?: { id: string } };

/**
 * POSTs one turn and reads its SSE answer as it streams, stamping every chunk
 * on arrival; throws unless the stream ends with `data: [DONE]`.
 */
async function streamTurn(url: string, body: unknown, signal: AbortSignal): Promise<Arrival[]> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-holdpoint-user': USER },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || !response.body) {
    throw new Error(`POST ${url} → ${response.status} ${await response.text()}`);
  }
  const arrivals: Arrival[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  let done = false;
  for await (const bytes of response.body) {
    const at = performance.now();
    buffered += decoder.decode(bytes, { stream: true });
    const end = buffered.lastIndexOf('\n\n');
    if (end < 0) continue;
    const parsed = parseSse(buffered.slice(0, end + 2));
    buffered = buffered.slice(end + 2);
    for (const chunk of parsed.chunks) arrivals.push({ chunk, at });
    done ||= parsed.done;
  }
  if (!done) throw new Error(`POST ${url}: the stream ended without [DONE]`);
  return arrivals;
}

/** When the first chunk of `type` arrived; throws when it never did. */
function arrivalOf(arrivals: Arrival[], type: UIMessageChunk['type'], turn: string): Arrival {
  const found = arrivals.find((a) => a.chunk.type === type);
  if (!found) {
    const types = arrivals.map((a) => a.chunk.type).join(', ');
    throw new Error(`${turn} streamed no ${type} chunk: ${types}`);
  }
  return found;
}

/** The paused assistant message with its tool part approved, as `useChat` would post it. */
function approved(message: UIMessage): UIMessage {
  const parts = message.parts.map((part) => {
    const approval = (part as ToolPart).approval;
    if (!part.type.startsWith('tool-') || !approval) return part;
    return {
      ...part,
      state: 'approval-responded',
      approval: { id: approval.id, approved: true },
    } as typeof part;
  });
  return { ...message, parts };
}

/**
 * A two-turn chat over `POST /api/chat` (the AI SDK's SSE protocol): turn 1
 * streams up to the approval request and ends, turn 2 posts the assistant
 * message with the approval answered and streams the tool output and reply.
 */
export function sseTwoTurnChat(baseUrl: string): StreamChat {
  const url = `${baseUrl}/api/chat`;
  return async (chatId, _slot, signal) => {
    const question: UIMessage = {
      id: `${chatId}-u1`,
      role: 'user',
      parts: [{ type: 'text', text: QUERY }],
    };
    const body = { id: chatId, app: APP, userId: USER };
    const sent = performance.now();
    const first = await streamTurn(url, { ...body, messages: [question] }, signal);
    const request = arrivalOf(first, 'tool-approval-request', 'turn 1');
    const paused = await finalMessage(first.map((a) => a.chunk));
    const decided = performance.now();
    const second = await streamTurn(
      url,
      { ...body, messages: [question, approved(paused)] },
      signal,
    );
    const output = arrivalOf(second, 'tool-output-available', 'turn 2');
    const artifacts = (output.chunk as { output?: { artifacts?: unknown[] } }).output?.artifacts;
    if (artifacts?.length !== IMAGES) {
      throw new Error(`turn 2 produced ${artifacts?.length ?? 0} images, expected ${IMAGES}`);
    }
    return {
      firstChunkMs: (first[0]?.at ?? Number.NaN) - sent,
      approvalRequestMs: request.at - sent,
      decisionToOutputMs: output.at - decided,
    };
  };
}
