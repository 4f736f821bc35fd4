import { setTimeout as sleep } from 'node:timers/promises';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
  type UIMessageChunk,
  WebSocketChatTransport,
} from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningServer, startServer } from '../../src/main/serve.js';
import { ChatSocketClient } from '../support/chat-socket-client.js';
import { exampleConfig } from '../support/example-apps.js';
import { signedInAs } from '../support/json-client.js';
import { NodeChat } from '../support/node-chat.js';
import { ops } from '../support/principals.js';
import { TestRedis } from '../support/redis-server.js';
import {
  adrApprovalMessage,
  finalMessage,
  invalidChunks,
  messageText,
  parseSse,
  postChat,
  type ToolPart,
  toolParts,
  userMessage,
} from '../support/ui-stream.js';

// Seed 001 (ADR 0009): the client answers an approval with a message of its own shape,
// over SSE in two turns (one [DONE] each) and over the WebSocket in one continuous
// stream (one finish, one end); the AI SDK's own shape works the same on both.

/** The seed's payment request, word for word. */
const PAYMENT = '次郎さんに200ドル送金してください';

let server: RunningServer;
let chatUrl: string;
beforeAll(async () => {
  server = await startServer(exampleConfig());
  chatUrl = `http://127.0.0.1:${server.port}/api/chat`;
});
afterAll(async () => server.close());

/** The stores every WebSocket scenario runs on. */
const STORES = ['memory', 'redis'] as const;

/**
 * The server a describe block talks to: the file's (memory), or one of its own on a
 * Redis of its own, where the waiting stream learns of the decision through pub/sub.
 */
function onStore(store: (typeof STORES)[number]): { server: RunningServer; socketUrl: string } {
  const target = {} as { server: RunningServer; socketUrl: string };
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    if (store === 'redis') {
      redis = await TestRedis.start();
      target.server = await startServer(
        exampleConfig('--store', 'redis', '--redis-url', redis.url),
      );
    } else {
      target.server = server;
    }
    target.socketUrl = `ws://127.0.0.1:${target.server.port}/api/chat/ws`;
  });
  afterAll(async () => {
    if (!redis) return;
    await target.server.close();
    await redis.stop();
  });
  return target;
}

/** Waits for the first chunk matching `predicate` among those collected so far. */
async function seen(
  chunks: UIMessageChunk[],
  predicate: (c: UIMessageChunk) => boolean,
): Promise<UIMessageChunk> {
  for (let i = 0; i < 1000; i++) {
    const found = chunks.find(predicate);
    if (found) return found;
    await sleep(10);
  }
  throw new Error(`chunk not seen in ${JSON.stringify(chunks)}`);
}

/** Waits until the stream says the run paused (its pause is stored). */
const paused = (chunks: UIMessageChunk[]) =>
  seen(
    chunks,
    (c) =>
      c.type === 'message-metadata' &&
      (c.messageMetadata as { status?: string } | undefined)?.status === 'paused',
  );

const finishes = (chunks: UIMessageChunk[]) => chunks.filter((c) => c.type === 'finish');

describe('seed 001 over SSE: the ADR approval message, two turns, one [DONE] each', () => {
  it.each([
    ['approved', true],
    ['denied', false],
  ])('%s', async (_label, approved) => {
    const question = userMessage(PAYMENT);
    const first = await postChat(chatUrl, {
      id: `seed-001-sse-${approved}`,
      app: 'payments',
      userId: 'jiro-sender',
      messages: [question],
    });
    expect(first.status).toBe(200);
    expect(first.done).toBe(true);
    expect(await invalidChunks(first.chunks)).toEqual([]);
    expect(finishes(first.chunks)).toEqual([
      expect.objectContaining({ finishReason: 'tool-calls' }),
    ]);
    const asked = await finalMessage(first.chunks);
    const [part] = toolParts(asked) as ToolPart[];
    expect(part).toMatchObject({ type: 'tool-process_payment', state: 'approval-requested' });
    const confirmationId = part?.approval?.id ?? '';

    // A payment is decided by an approver, never by the one who asked: maria answers.
    const second = await postChat(chatUrl, {
      id: `seed-001-sse-${approved}`,
      app: 'payments',
      userId: 'maria',
      messages: [question, asked, adrApprovalMessage(confirmationId, approved)],
    });
    expect(second.status).toBe(200);
    expect(second.done).toBe(true);
    expect(await invalidChunks(second.chunks)).toEqual([]);
    expect(second.chunks.filter((c) => c.type === 'error')).toEqual([]);
    expect(second.chunks[0]).toEqual({ type: 'start', messageId: asked.id });
    expect(finishes(second.chunks)).toEqual([expect.objectContaining({ finishReason: 'stop' })]);
    const done = await finalMessage(second.chunks, asked);
    expect(toolParts(done)[0]?.state).toBe(approved ? 'output-available' : 'output-denied');
    expect(messageText(done)).toMatch(approved ? /Sent 200 USD to 次郎/ : /rejected/);
    const { sessionId } = done.metadata as { sessionId: string };
    const { entries } = await server.holdpoint.runtime.operations.readAudit({ sessionId }, ops);
    expect(entries.find((e) => e.action === 'decided')).toMatchObject({
      actor: 'maria',
      approvalId: confirmationId,
      approved,
    });
    expect(entries.filter((e) => e.action === 'executed')).toHaveLength(approved ? 1 : 0);
  });

  it('an approval message that also asks something is refused, and changes nothing', async () => {
    const question = userMessage('Generate 10 images');
    const first = await postChat(chatUrl, {
      id: 'seed-001-sse-mixed',
      userId: 'mixer',
      messages: [question],
    });
    const asked = await finalMessage(first.chunks);
    const confirmationId = toolParts(asked)[0]?.approval?.id ?? '';
    const mixed = adrApprovalMessage(confirmationId, true);
    mixed.parts.push({ type: 'text', text: 'and generate 3 more' });
    const refused = await fetch(chatUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedInAs('mixer') },
      body: JSON.stringify({ id: 'seed-001-sse-mixed', messages: [question, asked, mixed] }),
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.code).toBe('VALIDATION_FAILED');
    const { sessionId } = asked.metadata as { sessionId: string };
    expect((await server.holdpoint.runtime.operations.getSession(sessionId, ops)).meta.status).toBe(
      'paused',
    );
  });
});

describe.each(STORES)(
  'seed 001 over the WebSocket (%s store): the ADR approval message continues the one stream',
  (store) => {
    const on = onStore(store);

    it.each([
      ['approved', true],
      ['denied', false],
    ])('%s on the same socket: one stream, one finish, one end', async (_label, approved) => {
      // The ADR's own user decides on the socket that waits: image-studio lets the owner
      // decide (a payment waits for someone else; see the next test).
      const socket = await ChatSocketClient.connect(on.socketUrl, signedInAs('seed-001-ws'));
      const frames = socket.frames();
      const question = userMessage('Generate 10 images');
      const live: UIMessageChunk[] = [];
      const turn = socket.turn(
        'r1',
        { id: `seed-001-ws-${approved}`, messages: [question], body: {} },
        (c) => live.push(c),
      );
      const request = (await seen(live, (c) => c.type === 'tool-approval-request')) as {
        approvalId: string;
      };
      await paused(live);
      const asked = await finalMessage(live);
      const answer = socket.turn('r2', {
        id: `seed-001-ws-${approved}`,
        messages: [question, asked, adrApprovalMessage(request.approvalId, approved)],
        body: {},
      });
      const [streamed, answered] = await Promise.all([turn, answer]);

      expect(answered).toEqual({ chunks: [], sequences: [], ended: 'end' });
      expect(streamed.ended).toBe('end');
      expect(streamed.sequences).toEqual(streamed.chunks.map((_, i) => i));
      expect(await invalidChunks(streamed.chunks)).toEqual([]);
      expect(streamed.chunks.filter((c) => c.type === 'start')).toHaveLength(1);
      expect(finishes(streamed.chunks)).toEqual([
        expect.objectContaining({ finishReason: 'stop' }),
      ]);
      // Everything the socket received: one stream's chunks, one finish, one end per request.
      const chunks = frames.filter((f) => f.type === 'chunk');
      expect(chunks.every((f) => f.requestId === 'r1')).toBe(true);
      expect(chunks.filter((f) => (f.chunk as UIMessageChunk).type === 'finish')).toHaveLength(1);
      expect(
        frames
          .filter((f) => f.type === 'end')
          .map((f) => f.requestId)
          .sort(),
      ).toEqual(['r1', 'r2']);
      const done = await finalMessage(streamed.chunks);
      expect(toolParts(done)[0]?.state).toBe(approved ? 'output-available' : 'output-denied');
      expect(messageText(done)).toMatch(
        approved ? /Here are the 10 images \(order REQ-10-HUMAN\)/ : /rejected/,
      );
      socket.close();
    });

    it('payments, word for word: the requester denies on the socket that waits; one stream, one finish', async () => {
      // The one who asked may deny a payment (never approve it): the ADR's own socket.
      const socket = await ChatSocketClient.connect(
        on.socketUrl,
        signedInAs('jiro-sender', ['approver']),
      );
      const frames = socket.frames();
      const question = userMessage(PAYMENT);
      const live: UIMessageChunk[] = [];
      const turn = socket.turn(
        'r1',
        { id: 'seed-001-ws-deny', messages: [question], body: { app: 'payments' } },
        (c) => live.push(c),
      );
      const request = (await seen(live, (c) => c.type === 'tool-approval-request')) as {
        approvalId: string;
      };
      await paused(live);
      const asked = await finalMessage(live);
      const answer = socket.turn('r2', {
        id: 'seed-001-ws-deny',
        messages: [question, asked, adrApprovalMessage(request.approvalId, false)],
        body: { app: 'payments' },
      });
      const [streamed, answered] = await Promise.all([turn, answer]);
      expect(answered).toEqual({ chunks: [], sequences: [], ended: 'end' });
      expect(await invalidChunks(streamed.chunks)).toEqual([]);
      expect(finishes(streamed.chunks)).toEqual([
        expect.objectContaining({ finishReason: 'stop' }),
      ]);
      expect(
        frames.filter((f) => f.type === 'chunk' && (f.chunk as UIMessageChunk).type === 'finish'),
      ).toHaveLength(1);
      const done = await finalMessage(streamed.chunks);
      expect(toolParts(done)[0]?.state).toBe('output-denied');
      expect(messageText(done)).toMatch(/rejected/);
      socket.close();
    });

    it('payments: an approver answers on a socket of their own; the waiting socket gets one finish', async () => {
      const requester = await ChatSocketClient.connect(
        on.socketUrl,
        signedInAs('jiro-sender', ['approver']),
      );
      const requesterFrames = requester.frames();
      const question = userMessage(PAYMENT);
      const live: UIMessageChunk[] = [];
      const turn = requester.turn(
        'r1',
        { id: 'seed-001-ws-payments', messages: [question], body: { app: 'payments' } },
        (c) => live.push(c),
      );
      const request = (await seen(live, (c) => c.type === 'tool-approval-request')) as {
        approvalId: string;
      };
      await paused(live);
      const asked = await finalMessage(live);
      const approver = await ChatSocketClient.connect(
        on.socketUrl,
        signedInAs('maria', ['approver']),
      );
      const approverFrames = approver.frames();
      const answer = approver.turn('a1', {
        id: 'seed-001-ws-payments',
        messages: [question, asked, adrApprovalMessage(request.approvalId, true)],
        body: { app: 'payments' },
      });
      const [streamed, answered] = await Promise.all([turn, answer]);
      expect(finishes(streamed.chunks)).toEqual([
        expect.objectContaining({ finishReason: 'stop' }),
      ]);
      expect(await invalidChunks(streamed.chunks)).toEqual([]);
      expect(messageText(await finalMessage(streamed.chunks))).toMatch(/Sent 200 USD to 次郎/);
      // The approver's socket had no stream waiting: its answer streams the continuation once.
      expect(answered.ended).toBe('end');
      expect(await invalidChunks(answered.chunks)).toEqual([]);
      expect(finishes(answered.chunks)).toEqual([
        expect.objectContaining({ finishReason: 'stop' }),
      ]);
      for (const frames of [requesterFrames, approverFrames]) {
        expect(
          frames.filter((f) => f.type === 'chunk' && (f.chunk as UIMessageChunk).type === 'finish'),
        ).toHaveLength(1);
      }
      requester.close();
      approver.close();
    });

    it('an answer the waiting stream cannot take gets an error frame and the stream waits on; after the run, the same answer is refused', async () => {
      const socket = await ChatSocketClient.connect(on.socketUrl, signedInAs('seed-001-twice'));
      const question = userMessage('Generate 5 images');
      const live: UIMessageChunk[] = [];
      const turn = socket.turn(
        'r1',
        { id: 'seed-001-twice', messages: [question], body: {} },
        (c) => live.push(c),
      );
      const request = (await seen(live, (c) => c.type === 'tool-approval-request')) as {
        approvalId: string;
      };
      await paused(live);
      const asked = await finalMessage(live);
      const answer = (id: string, requestId: string) =>
        socket.turn(requestId, {
          id: 'seed-001-twice',
          messages: [question, asked, adrApprovalMessage(id, true)],
          body: {},
        });
      expect(await answer('adk-forged', 'r2')).toMatchObject({
        chunks: [],
        ended: 'error',
        errorText: expect.stringMatching(/^APPROVAL_NOT_FOUND: /),
      });
      const sessionId = (asked.metadata as { sessionId: string }).sessionId;
      expect(
        (await on.server.holdpoint.runtime.operations.getSession(sessionId, ops)).meta.status,
      ).toBe('paused');
      expect(await answer(request.approvalId, 'r3')).toMatchObject({ chunks: [], ended: 'end' });
      const streamed = await turn;
      expect(finishes(streamed.chunks)).toEqual([
        expect.objectContaining({ finishReason: 'stop' }),
      ]);
      // The run is over and no stream waits: the same answer again streams its refusal.
      const late = await answer(request.approvalId, 'r4');
      expect(late.ended).toBe('end');
      expect(await invalidChunks(late.chunks)).toEqual([]);
      expect(late.chunks).toContainEqual({
        type: 'error',
        errorText: expect.stringMatching(/^ALREADY_DECIDED: /),
      });
      expect(finishes(late.chunks)).toEqual([expect.objectContaining({ finishReason: 'error' })]);
      socket.close();
    });
  },
);

/** A `ws` WebSocket that also records every frame it receives, for counting. */
function tappedWebSocket(frames: Record<string, unknown>[]): typeof WebSocket {
  return class TappedWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      this.on('message', (data) => frames.push(JSON.parse(String(data))));
    }
  } as typeof WebSocket;
}

describe('seed 001 through the AI SDK client: its own shape (the tool part in approval-responded)', () => {
  it('SSE (DefaultChatTransport): two turns, one [DONE] and one finish each; the approver continues the same message', async () => {
    let signedIn = 'jiro-sender';
    const turns: Promise<ReturnType<typeof parseSse>>[] = [];
    // The transport's own fetch, keeping a copy of each turn's stream to count and check.
    const tapped: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      turns.push(
        response
          .clone()
          .text()
          .then((text) => parseSse(text)),
      );
      return response;
    };
    const chat = new NodeChat({
      transport: new DefaultChatTransport<UIMessage>({
        api: chatUrl,
        headers: () => signedInAs(signedIn, ['approver']),
        body: { app: 'payments' },
        fetch: tapped,
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: PAYMENT });
    await chat.until(
      (c) =>
        c.status === 'ready' &&
        toolParts(c.lastMessage as UIMessage)[0]?.state === 'approval-requested',
    );
    const asked = chat.lastMessage as UIMessage;
    signedIn = 'maria';
    await chat.addToolApprovalResponse({
      id: toolParts(asked)[0]?.approval?.id ?? '',
      approved: true,
    });
    await chat.until(
      (c) =>
        c.status === 'ready' &&
        toolParts(c.lastMessage as UIMessage)[0]?.state === 'output-available',
    );
    expect(chat.error).toBeUndefined();
    expect(chat.messages).toHaveLength(2);
    expect(chat.lastMessage?.id).toBe(asked.id);
    expect(messageText(chat.lastMessage as UIMessage)).toMatch(/Sent 200 USD to 次郎/);
    const [first, second, ...more] = await Promise.all(turns);
    expect(more).toEqual([]);
    for (const turn of [first, second]) {
      expect(turn?.done).toBe(true);
      expect(await invalidChunks(turn?.chunks ?? [])).toEqual([]);
    }
    expect(finishes(first?.chunks ?? [])).toEqual([
      expect.objectContaining({ finishReason: 'tool-calls' }),
    ]);
    expect(finishes(second?.chunks ?? [])).toEqual([
      expect.objectContaining({ finishReason: 'stop' }),
    ]);
  });
});

describe.each(STORES)(
  'seed 001 through the AI SDK client over the WebSocket (%s store)',
  (store) => {
    const on = onStore(store);

    it('WebSocket (WebSocketChatTransport): a send carrying approval-responded continues the waiting stream; nothing is replayed', async () => {
      const frames: Record<string, unknown>[] = [];
      const chat = new NodeChat({
        transport: new WebSocketChatTransport<UIMessage>({
          url: `${on.socketUrl}?user=seed-001-sdk`,
          webSocket: tappedWebSocket(frames) as never,
          body: { app: 'image-studio' },
        }),
      });
      const sending = chat.sendMessage({ text: 'Generate 10 images' });
      await chat.until(
        (c) =>
          toolParts((c.lastMessage ?? userMessage('')) as UIMessage)[0]?.state ===
          'approval-requested',
      );
      const asked = chat.lastMessage as UIMessage;
      expect(chat.status).toBe('streaming');
      await chat.addToolApprovalResponse({
        id: toolParts(asked)[0]?.approval?.id ?? '',
        approved: true,
      });
      // The stream still waits, so the chat sends nothing by itself: the app sends the answer.
      const answering = chat.sendMessage();
      await Promise.all([sending, answering]);
      await chat.until(
        (c) =>
          c.status === 'ready' &&
          toolParts(c.lastMessage as UIMessage)[0]?.state === 'output-available',
      );

      const chunkFrames = frames.filter((f) => f.type === 'chunk');
      const streams = new Set(chunkFrames.map((f) => f.requestId));
      expect(streams.size).toBe(1);
      const chunks = chunkFrames.map((f) => f.chunk as UIMessageChunk);
      expect(await invalidChunks(chunks)).toEqual([]);
      expect(chunks.filter((c) => c.type === 'start')).toHaveLength(1);
      expect(finishes(chunks)).toEqual([expect.objectContaining({ finishReason: 'stop' })]);
      expect(chunks.filter((c) => c.type === 'tool-output-available')).toHaveLength(1);
      expect(frames.filter((f) => f.type === 'end')).toHaveLength(2);
      expect(chat.error).toBeUndefined();
      expect(chat.messages).toHaveLength(2);
      const done = chat.lastMessage as UIMessage;
      expect(done.id).toBe(asked.id);
      expect(messageText(done)).toContain('Here are the 10 images (order REQ-10-HUMAN).');
      expect((toolParts(done)[0]?.output as { artifacts?: string[] })?.artifacts).toHaveLength(10);
    });

    it("the ADR's approval message sent as it is (sendMessage) continues the waiting stream too", async () => {
      const frames: Record<string, unknown>[] = [];
      const chat = new NodeChat({
        transport: new WebSocketChatTransport<UIMessage>({
          url: `${on.socketUrl}?user=seed-001-adr`,
          webSocket: tappedWebSocket(frames) as never,
          body: { app: 'image-studio' },
        }),
      });
      const sending = chat.sendMessage({ text: 'Generate 10 images' });
      await chat.until(
        (c) =>
          toolParts((c.lastMessage ?? userMessage('')) as UIMessage)[0]?.state ===
            'approval-requested' &&
          (c.lastMessage?.metadata as { status?: string } | undefined)?.status === 'paused',
      );
      const asked = chat.lastMessage as UIMessage;
      const confirmationId = toolParts(asked)[0]?.approval?.id ?? '';
      // The frontend the ADR keeps unchanged: its message, through the SDK's own Chat.
      const answering = chat.sendMessage(adrApprovalMessage(confirmationId, true) as never);
      await Promise.all([sending, answering]);
      await chat.until(
        (c) =>
          c.status === 'ready' &&
          toolParts(c.messages[1] as UIMessage)[0]?.state === 'output-available',
      );
      const chunks = frames.filter((f) => f.type === 'chunk').map((f) => f.chunk as UIMessageChunk);
      expect(await invalidChunks(chunks)).toEqual([]);
      expect(finishes(chunks)).toEqual([expect.objectContaining({ finishReason: 'stop' })]);
      expect(frames.filter((f) => f.type === 'end')).toHaveLength(2);
      expect(chat.error).toBeUndefined();
      expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(messageText(chat.messages[1] as UIMessage)).toContain(
        'Here are the 10 images (order REQ-10-HUMAN).',
      );
    });
  },
);
