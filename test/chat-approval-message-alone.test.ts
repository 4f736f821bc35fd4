import { fileURLToPath } from 'node:url';
import type { UIMessageChunk } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { ChatSocketClient } from './support/chat-socket-client.js';
import { exampleConfig } from './support/example-apps.js';
import { signedInAs } from './support/json-client.js';
import {
  adrApprovalMessage,
  finalMessage,
  invalidChunks,
  messageText,
  postChat,
  toolParts,
  userMessage,
} from './support/ui-stream.js';

// Issue 32, point 2: seed 001's approval message sent as the ADR sends it, alone: no
// history and no `body.sessionId`. The approval it names says which run it decides.

const FAILING_APP = fileURLToPath(
  new URL('./fixtures/apps/fails-after-approval.ts', import.meta.url),
);

let server: RunningServer;
let socketUrl: string;
let chatUrl: string;
beforeAll(async () => {
  server = await startServer(exampleConfig('--app', FAILING_APP));
  socketUrl = `ws://127.0.0.1:${server.port}/api/chat/ws`;
  chatUrl = `http://127.0.0.1:${server.port}/api/chat`;
});
afterAll(async () => server.close());

const opened: ChatSocketClient[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) socket.close();
});

async function connect(headers: Record<string, string>) {
  const socket = await ChatSocketClient.connect(socketUrl, headers);
  opened.push(socket);
  return { socket, frames: socket.frames() };
}

/**
 * Sends r1's user text on `socket`; `request` resolves with its `tool-approval-request`
 * (sent once the pause is stored), `turn` once r1 ends.
 */
function ask(socket: ChatSocketClient, chatId: string, text: string, app: string) {
  let asked!: (request: { approvalId: string }) => void;
  const request = new Promise<{ approvalId: string }>((resolve) => {
    asked = resolve;
  });
  const turn = socket.turn(
    'r1',
    { id: chatId, messages: [userMessage(text)], body: { app } },
    (chunk) => {
      if (chunk.type === 'tool-approval-request') asked(chunk);
    },
  );
  return { request, turn };
}

/** r2: the ADR's message alone, with no `body.sessionId`. */
function answerAlone(socket: ChatSocketClient, requestId: string, chatId: string, id: string) {
  return socket.turn(requestId, { id: chatId, messages: [adrApprovalMessage(id)], body: {} });
}

const chunksOf = (frames: Record<string, unknown>[]) =>
  frames.filter((f) => f.type === 'chunk').map((f) => f.chunk as UIMessageChunk);
const finishes = (chunks: UIMessageChunk[]) => chunks.filter((c) => c.type === 'finish');
const endsOf = (frames: Record<string, unknown>[]) =>
  frames
    .filter((f) => f.type === 'end' || f.type === 'error')
    .map((f) => `${String(f.type)} ${String(f.requestId)}`)
    .sort();

describe('the ADR approval message alone over the WebSocket', () => {
  it('decides the approval the socket waits for: that stream goes on to its one finish, the send ends', async () => {
    const { socket, frames } = await connect(signedInAs('adr-alone'));
    const { request, turn } = ask(socket, 'adr-alone', 'Generate 10 images', 'image-studio');
    const { approvalId } = await request;

    const answered = await answerAlone(socket, 'r2', 'adr-alone', approvalId);
    // r2 opens no stream of its own: the waiting one carries the run on.
    expect(answered).toEqual({ chunks: [], sequences: [], ended: 'end' });
    const streamed = await turn;
    expect(streamed.ended).toBe('end');
    expect(await invalidChunks(streamed.chunks)).toEqual([]);
    expect(finishes(streamed.chunks)).toEqual([expect.objectContaining({ finishReason: 'stop' })]);
    expect(streamed.chunks).toContainEqual({
      type: 'tool-approval-response',
      approvalId,
      approved: true,
    });
    const done = await finalMessage(streamed.chunks);
    expect(toolParts(done)[0]?.state).toBe('output-available');
    expect(messageText(done)).toMatch(/Here are the 10 images \(order REQ-10-HUMAN\)/);
    // Everything the socket got: r1's chunks only, one finish, one end per request.
    expect(frames.filter((f) => f.type === 'chunk').every((f) => f.requestId === 'r1')).toBe(true);
    expect(finishes(chunksOf(frames))).toHaveLength(1);
    expect(endsOf(frames)).toEqual(['end r1', 'end r2']);

    // Sent again once the run is over, it names an approval nobody waits for.
    const again = await answerAlone(socket, 'r3', 'adr-alone', approvalId);
    expect(again.ended).toBe('end');
    expect(await invalidChunks(again.chunks)).toEqual([]);
    expect(again.chunks).toContainEqual({
      type: 'error',
      errorText: `ALREADY_DECIDED: Approval ${approvalId} is already decided.`,
    });
    expect(finishes(again.chunks)).toEqual([expect.objectContaining({ finishReason: 'error' })]);
  });

  it('payments, "Send $200 to Jiro": an approver sends it on a socket of their own, which streams the continuation; the waiting socket gets its one finish', async () => {
    const requester = await connect(signedInAs('jiro-sender', ['approver']));
    const { request, turn } = ask(requester.socket, 'adr-pay', 'Send $200 to Jiro', 'payments');
    const { approvalId } = await request;
    const approver = await connect(signedInAs('maria', ['approver']));

    const answered = await answerAlone(approver.socket, 'a1', 'adr-pay', approvalId);
    expect(answered.ended).toBe('end');
    expect(await invalidChunks(answered.chunks)).toEqual([]);
    expect(finishes(answered.chunks)).toEqual([expect.objectContaining({ finishReason: 'stop' })]);
    const streamed = await turn;
    expect(await invalidChunks(streamed.chunks)).toEqual([]);
    expect(finishes(streamed.chunks)).toEqual([expect.objectContaining({ finishReason: 'stop' })]);
    expect(messageText(await finalMessage(streamed.chunks))).toMatch(/Sent 200 USD to Jiro/);
    for (const { frames } of [requester, approver]) {
      expect(finishes(chunksOf(frames))).toHaveLength(1);
    }
    expect(endsOf(requester.frames)).toEqual(['end r1']);
    expect(endsOf(approver.frames)).toEqual(['end a1']);
  });

  it('naming an approval nobody waits for: an error naming it, and the waiting stream waits on to its one finish', async () => {
    const { socket, frames } = await connect(signedInAs('adr-nobody'));
    const { request, turn } = ask(socket, 'adr-nobody', 'Generate 10 images', 'image-studio');
    const { approvalId } = await request;

    const refused = await answerAlone(socket, 'r2', 'adr-nobody', 'adk-nobody-waits');
    expect(refused.ended).toBe('end');
    expect(await invalidChunks(refused.chunks)).toEqual([]);
    expect(refused.chunks).toContainEqual({
      type: 'error',
      errorText: 'APPROVAL_NOT_FOUND: No approval adk-nobody-waits waits for a decision.',
    });
    expect(finishes(refused.chunks)).toEqual([expect.objectContaining({ finishReason: 'error' })]);

    expect(await answerAlone(socket, 'r3', 'adr-nobody', approvalId)).toEqual({
      chunks: [],
      sequences: [],
      ended: 'end',
    });
    const streamed = await turn;
    expect(await invalidChunks(streamed.chunks)).toEqual([]);
    expect(finishes(streamed.chunks)).toEqual([expect.objectContaining({ finishReason: 'stop' })]);
    expect(endsOf(frames)).toEqual(['end r1', 'end r2', 'end r3']);
  });

  it('when the waiting stream fails after the decision: it ends with its error and one finish, and the send ends', async () => {
    const { socket, frames } = await connect(signedInAs('adr-fails'));
    const { request, turn } = ask(socket, 'adr-fails', 'launch', 'fails-after-approval');
    const { approvalId } = await request;

    const answered = await answerAlone(socket, 'r2', 'adr-fails', approvalId);
    expect(answered).toEqual({ chunks: [], sequences: [], ended: 'end' });
    const streamed = await turn;
    expect(streamed.ended).toBe('end');
    expect(await invalidChunks(streamed.chunks)).toEqual([]);
    expect(streamed.chunks).toContainEqual({
      type: 'error',
      errorText: expect.stringMatching(/^RUN_FAILED: .*the model is down/),
    });
    expect(finishes(streamed.chunks)).toEqual([expect.objectContaining({ finishReason: 'error' })]);
    expect(finishes(chunksOf(frames))).toHaveLength(1);
    expect(endsOf(frames)).toEqual(['end r1', 'end r2']);
  });
});

describe('the ADR approval message alone over SSE (two turns)', () => {
  it('payments: the approver posts it alone; the second turn streams the continuation to its finish', async () => {
    const first = await postChat(chatUrl, {
      id: 'adr-alone-sse',
      app: 'payments',
      userId: 'jiro-sender',
      messages: [userMessage('Send $200 to Jiro')],
    });
    const asked = await finalMessage(first.chunks);
    const approvalId = toolParts(asked)[0]?.approval?.id ?? '';
    expect(approvalId).toMatch(/^adk-/);

    const second = await postChat(chatUrl, {
      id: 'adr-alone-sse',
      userId: 'maria',
      messages: [adrApprovalMessage(approvalId)],
    });
    expect(second.status).toBe(200);
    expect(second.done).toBe(true);
    expect(await invalidChunks(second.chunks)).toEqual([]);
    expect(second.chunks.filter((c) => c.type === 'error')).toEqual([]);
    expect(finishes(second.chunks)).toEqual([expect.objectContaining({ finishReason: 'stop' })]);
    expect(second.chunks).toContainEqual(
      expect.objectContaining({
        type: 'tool-output-available',
        toolCallId: toolParts(asked)[0]?.toolCallId,
      }),
    );

    // Posted again, it names an approval decided already.
    const again = await postChat(chatUrl, {
      id: 'adr-alone-sse',
      userId: 'maria',
      messages: [adrApprovalMessage(approvalId)],
    });
    expect(again.done).toBe(true);
    expect(await invalidChunks(again.chunks)).toEqual([]);
    expect(again.chunks).toContainEqual({
      type: 'error',
      errorText: `ALREADY_DECIDED: Approval ${approvalId} is already decided.`,
    });
  });

  it('naming an approval nobody waits for: an error naming it', async () => {
    const answered = await postChat(chatUrl, {
      id: 'adr-alone-sse-nobody',
      userId: 'maria',
      messages: [adrApprovalMessage('adk-nobody-waits')],
    });
    expect(answered.status).toBe(200);
    expect(answered.done).toBe(true);
    expect(await invalidChunks(answered.chunks)).toEqual([]);
    expect(answered.chunks).toEqual([
      { type: 'start', messageId: expect.stringMatching(/^msg-/) },
      {
        type: 'error',
        errorText: 'APPROVAL_NOT_FOUND: No approval adk-nobody-waits waits for a decision.',
      },
    ]);
  });
});
