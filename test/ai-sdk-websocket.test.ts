import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type UIMessage, type UIMessageChunk, WebSocketChatTransport } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { ChatSocketClient } from './support/chat-socket-client.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient, signedInAs, TESTER_ROLES } from './support/json-client.js';
import { NodeChat } from './support/node-chat.js';
import { ops } from './support/principals.js';
import { TestRedis } from './support/redis-server.js';
import {
  expectGoldenStream,
  finalMessage,
  invalidChunks,
  messageText,
  type ToolPart,
  toolParts,
  userMessage,
} from './support/ui-stream.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`./fixtures/ws/${name}.json`, import.meta.url));
const socketUrl = (server: RunningServer) => `ws://127.0.0.1:${server.port}/api/chat/ws`;

async function serve(...args: string[]): Promise<RunningServer> {
  return startServer(exampleConfig(...args));
}

let server: RunningServer;
beforeAll(async () => {
  server = await serve();
});
afterAll(async () => server.close());

/** Waits until the stream says, for the `n`th time, that the run paused (its pause is stored). */
function pausedFor(chunks: UIMessageChunk[], n: number): Promise<UIMessageChunk> {
  return seen(
    chunks,
    (c) =>
      chunks.filter(
        (m) =>
          m.type === 'message-metadata' &&
          (m.messageMetadata as { status?: string } | undefined)?.status === 'paused',
      ).length >= n && c.type === 'message-metadata',
  );
}

/** Waits for the first chunk matching `predicate` among those collected so far. */
async function seen(
  chunks: UIMessageChunk[],
  predicate: (c: UIMessageChunk) => boolean,
): Promise<UIMessageChunk> {
  for (let i = 0; i < 500; i++) {
    const found = chunks.find(predicate);
    if (found) return found;
    await sleep(10);
  }
  throw new Error(`chunk not seen in ${JSON.stringify(chunks)}`);
}

describe.each([
  ['image-studio', 'Generate 10 images'],
  ['payments', 'Send $200 to Jiro'],
])('continuous approvals over WebSocket: %s', (app, words) => {
  it.each([
    ['approved', true],
    ['denied', false],
  ])('%s from a second connection: one stream, one end', async (label, approved) => {
    const [chatter, decider] = await Promise.all([
      ChatSocketClient.connect(socketUrl(server), signedInAs('ws-user')),
      ChatSocketClient.connect(socketUrl(server), signedInAs('approver', TESTER_ROLES)),
    ]);
    const live: UIMessageChunk[] = [];
    const turn = chatter.turn(
      'r1',
      {
        id: `ws-${app}-${label}`,
        messages: [userMessage(words)],
        body: { app, userId: 'ws-user' },
      },
      (c) => live.push(c),
    );
    const request = (await seen(live, (c) => c.type === 'tool-approval-request')) as {
      approvalId: string;
    };
    const result = await decider.decide({
      approvalId: request.approvalId,
      approved,
      reason: approved ? 'ok' : 'no',
      userId: 'approver',
    });
    expect(result).toMatchObject({
      type: 'decision-result',
      approvalId: request.approvalId,
      status: 'completed',
    });
    const { chunks, sequences, ended } = await turn;
    expect(ended).toBe('end');
    expect(sequences).toEqual(chunks.map((_, i) => i));
    expect(chunks.filter((c) => c.type === 'start')).toHaveLength(1);
    expect(chunks.filter((c) => c.type === 'finish')).toEqual([
      expect.objectContaining({ finishReason: 'stop' }),
    ]);
    await expectGoldenStream(chunks, fixture(`${app}-${label}`));
    const message = await finalMessage(chunks);
    expect(toolParts(message)[0]?.state).toBe(approved ? 'output-available' : 'output-denied');
    expect(messageText(message)).toMatch(
      approved ? /Here are the 10 images|Sent 200 USD/ : /\bno\b/,
    );
    chatter.close();
    decider.close();
  });
});

describe('continuous input requests (picker)', () => {
  it('two values sent as decision frames, one stream to the end', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(server), signedInAs('ws-user'));
    const live: UIMessageChunk[] = [];
    const turn = chatter.turn(
      'r1',
      {
        id: 'ws-picker',
        messages: [userMessage('Pick a fruit')],
        body: { app: 'picker', userId: 'ws-user' },
      },
      (c) => live.push(c),
    );
    const api = new JsonClient(`http://127.0.0.1:${server.port}`);
    const select = (await seen(
      live,
      (c) => c.type === 'tool-input-available' && c.toolName === 'select_item',
    )) as { toolCallId: string };
    await pausedFor(live, 1);
    // The same decision from the REST path: POST /api/approvals/:approvalId.
    const first = await api.post(`/api/approvals/${select.toolCallId}`, {
      approved: true,
      payload: { item: 'Apple' },
    });
    expect(first.body.status).toBe('pending_approval');
    const confirm = (await seen(
      live,
      (c) => c.type === 'tool-input-available' && c.toolName === 'confirm_choice',
    )) as { toolCallId: string };
    await pausedFor(live, 2);
    expect(
      (
        await chatter.decide({
          approvalId: confirm.toolCallId,
          approved: true,
          payload: { confirmed: true },
        })
      ).type,
    ).toBe('decision-result');
    const { chunks } = await turn;
    await expectGoldenStream(chunks, fixture('picker'));
    const message = await finalMessage(chunks);
    expect(toolParts(message).map((p) => p.state)).toEqual([
      'output-available',
      'output-available',
    ]);
    expect(messageText(message)).toContain('You picked Apple, and it is confirmed.');
    chatter.close();
  });
});

describe('continuous input request declined (picker)', () => {
  it('a decision frame with approved:false declines it; the same stream ends the run', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(server));
    const live: UIMessageChunk[] = [];
    const turn = chatter.turn(
      'r1',
      {
        id: 'ws-picker-declined',
        messages: [userMessage('Pick a fruit')],
        body: { app: 'picker' },
      },
      (c) => live.push(c),
    );
    const select = (await seen(
      live,
      (c) => c.type === 'tool-input-available' && c.toolName === 'select_item',
    )) as { toolCallId: string };
    await pausedFor(live, 1);
    expect(
      (
        await chatter.decide({
          approvalId: select.toolCallId,
          approved: false,
          reason: 'none of these',
        })
      ).type,
    ).toBe('decision-result');
    const { chunks } = await turn;
    await expectGoldenStream(chunks, fixture('picker-declined'));
    const message = await finalMessage(chunks);
    expect(toolParts(message)[0]?.state).toBe('output-denied');
    expect(messageText(message)).toContain('Nothing was picked.');
    chatter.close();
  });
});

describe('the real WebSocketChatTransport', () => {
  it('keeps one assistant message open across the approval decided from another connection', async () => {
    const chat = new NodeChat({
      transport: new WebSocketChatTransport<UIMessage>({
        url: `${socketUrl(server)}?user=transport-user`,
        webSocket: WebSocket as never,
        body: { app: 'payments', userId: 'transport-user' },
      }),
    });
    const sending = chat.sendMessage({ text: 'Send $75 to Ana' });
    await chat.until(
      (c) =>
        toolParts((c.lastMessage ?? userMessage('')) as UIMessage)[0]?.state ===
        'approval-requested',
    );
    expect(chat.status).toBe('streaming');
    const part = toolParts(chat.lastMessage as UIMessage)[0] as ToolPart;
    const decider = await ChatSocketClient.connect(
      socketUrl(server),
      signedInAs('approver', TESTER_ROLES),
    );
    await decider.decide({
      approvalId: part.approval?.id ?? '',
      approved: true,
      userId: 'approver',
    });
    await sending;
    await chat.until((c) => c.status === 'ready');
    expect(chat.messages).toHaveLength(2);
    const done = chat.lastMessage as UIMessage;
    expect(toolParts(done)[0]?.state).toBe('output-available');
    expect(messageText(done)).toMatch(/Sent 75 USD to Ana \(transaction TXN-/);
    decider.close();
  });
});

describe('timeouts, abort, cancel, double decisions, bad frames', () => {
  let quick: RunningServer;
  beforeAll(async () => {
    quick = await serve('--approval-timeout', '1');
  });
  afterAll(async () => quick.close());

  it('deny policy (payments): a timed-out approval is denied with reason "timed out", audited', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(quick));
    const { chunks } = await chatter.turn('r1', {
      id: 'deny',
      messages: [userMessage('Send $5 to Bob')],
      body: { app: 'payments' },
    });
    expect(chunks.filter((c) => c.type === 'finish')).toEqual([
      expect.objectContaining({ finishReason: 'stop' }),
    ]);
    expect(chunks).toContainEqual(
      expect.objectContaining({
        type: 'tool-approval-response',
        approved: false,
        reason: 'timed out',
      }),
    );
    expect(chunks).toContainEqual(expect.objectContaining({ type: 'tool-output-denied' }));
    const { sessionId } = (await finalMessage(chunks)).metadata as { sessionId: string };
    const { entries: audit } = await quick.holdpoint.runtime.operations.readAudit(
      { sessionId },
      ops,
    );
    expect(audit.find((e) => e.action === 'decided')).toMatchObject({
      actor: 'system',
      approved: false,
      reason: 'timed out',
    });
    chatter.close();
  });

  it('park policy (image-studio): the stream ends with the pause stored; REST resumes it later', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(quick));
    const { chunks } = await chatter.turn('r1', {
      id: 'park',
      messages: [userMessage('Generate 3 images')],
      body: {},
    });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    const { sessionId } = (await finalMessage(chunks)).metadata as { sessionId: string };
    const api = new JsonClient(`http://127.0.0.1:${quick.port}`);
    const { body: view } = await api.get(`/api/sessions/${sessionId}`);
    expect(view.status).toBe('paused');
    const resume = await api.post('/api/agent/resume', {
      session_id: sessionId,
      pause_id: view.pause.pause_id,
      approved: true,
    });
    expect(resume.body.status).toBe('completed');
    chatter.close();
  });

  it('abort ends the stream without losing the pause', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(server));
    const frames = chatter.frames();
    chatter.socket.send(
      JSON.stringify({
        type: 'send',
        requestId: 'a1',
        id: 'abort',
        messages: [userMessage('Generate 6 images')],
        trigger: 'submit-message',
        headers: {},
        body: {},
      }),
    );
    const metadata = await (async () => {
      for (let i = 0; i < 300; i++) {
        const request = frames.find(
          (f) => (f.chunk as UIMessageChunk | undefined)?.type === 'tool-approval-request',
        );
        const meta = frames
          .map((f) => f.chunk as { type: string; messageMetadata?: { sessionId: string } })
          .find((c) => c?.type === 'message-metadata');
        if (request && meta?.messageMetadata) return meta.messageMetadata;
        await sleep(10);
      }
      throw new Error('no approval request');
    })();
    // A `resume` frame is answered `no-active` in order: every frame before it has arrived.
    let probes = 0;
    const roundTrip = async () => {
      const requestId = `probe-${++probes}`;
      chatter.socket.send(
        JSON.stringify({ type: 'resume', requestId, id: 'abort', headers: {}, body: {} }),
      );
      for (let i = 0; !frames.some((f) => f.requestId === requestId); i++) {
        if (i === 300) throw new Error(`no answer to ${requestId}`);
        await sleep(10);
      }
    };
    chatter.socket.send(JSON.stringify({ type: 'abort', requestId: 'a1' }));
    await roundTrip();
    const count = frames.filter((f) => f.requestId === 'a1').length;
    const api = new JsonClient(`http://127.0.0.1:${server.port}`);
    const { body: view } = await api.get(`/api/sessions/${metadata.sessionId}`);
    expect(view.status).toBe('paused');
    const resume = await api.post('/api/agent/resume', {
      session_id: metadata.sessionId,
      pause_id: view.pause.pause_id,
      approved: true,
    });
    expect(resume.body.status).toBe('completed');
    await roundTrip();
    expect(frames.filter((f) => f.requestId === 'a1')).toHaveLength(count);
    chatter.close();
  });

  it('a REST cancel ends a waiting stream with a clear final chunk', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(server));
    const live: UIMessageChunk[] = [];
    const turn = chatter.turn(
      'c1',
      { id: 'cancel', messages: [userMessage('Generate 8 images')], body: {} },
      (c) => live.push(c),
    );
    await seen(live, (c) => c.type === 'tool-approval-request');
    const meta = (await seen(live, (c) => c.type === 'message-metadata')) as {
      messageMetadata: { sessionId: string };
    };
    const api = new JsonClient(`http://127.0.0.1:${server.port}`);
    await api.post('/api/agent/cancel', {
      session_id: meta.messageMetadata.sessionId,
      reason: 'not today',
    });
    const { chunks } = await turn;
    expect(chunks.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'other',
      messageMetadata: { status: 'cancelled' },
    });
    expect(await invalidChunks(chunks)).toEqual([]);
    chatter.close();
  });

  it('a decision made on one path is seen by the others; a second one gets 409 on any path', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(server));
    const live: UIMessageChunk[] = [];
    const turn = chatter.turn(
      'd1',
      { id: 'double', messages: [userMessage('Send $9 to Kim')], body: { app: 'payments' } },
      (c) => live.push(c),
    );
    const request = (await seen(live, (c) => c.type === 'tool-approval-request')) as {
      approvalId: string;
    };
    const api = new JsonClient(`http://127.0.0.1:${server.port}`);
    const approved = { approved: true, user_id: 'maria' };
    expect((await api.post(`/api/approvals/${request.approvalId}`, approved)).body.status).toBe(
      'completed',
    );
    expect(await chatter.decide({ approvalId: request.approvalId, approved: false })).toMatchObject(
      { type: 'decision-error', code: 'ALREADY_DECIDED' },
    );
    const again = await api.post(`/api/approvals/${request.approvalId}`, {
      approved: false,
      user_id: 'maria',
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_DECIDED');
    const { chunks } = await turn;
    expect(chunks).toContainEqual(
      expect.objectContaining({
        type: 'tool-approval-response',
        approvalId: request.approvalId,
        approved: true,
      }),
    );
    chatter.close();
  });

  it('malformed frames: not JSON closes with 1008; bad decision and empty send get error frames', async () => {
    const client = await ChatSocketClient.connect(socketUrl(server));
    expect(await client.decide({ approvalId: '', approved: true })).toMatchObject({
      type: 'decision-error',
      code: 'VALIDATION_FAILED',
    });
    expect(await client.decide({ approvalId: 'adk-unknown', approved: true })).toMatchObject({
      type: 'decision-error',
      code: 'APPROVAL_NOT_FOUND',
    });
    let deep: unknown = 'Apple';
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(
      await client.decide({ approvalId: 'adk-named', approved: true, payload: deep }),
    ).toMatchObject({
      type: 'decision-error',
      approvalId: 'adk-named',
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/deeper than 32 levels/),
    });
    const empty = await client.turn('e1', {
      id: 'empty',
      messages: [userMessage('   ')],
      body: {},
    });
    expect(empty).toMatchObject({
      ended: 'error',
      errorText: expect.stringMatching(/^VALIDATION_FAILED/),
    });
    const closed = client.closed();
    client.socket.send('{not json');
    expect((await closed).code).toBe(1008);
    const unknownPath = new WebSocket(`ws://127.0.0.1:${server.port}/nope`);
    await new Promise((resolve) => unknownPath.once('error', resolve));
  });
});

describe('with Redis: the decision reaches the waiting stream on another instance', () => {
  let redis: TestRedis;
  let a: RunningServer;
  let b: RunningServer;
  beforeAll(async () => {
    redis = await TestRedis.start();
    [a, b] = await Promise.all([
      serve('--store', 'redis', '--redis-url', redis.url),
      serve('--store', 'redis', '--redis-url', redis.url),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await redis.stop();
  });

  it('WebSocketChatTransport on A, POST /api/approvals/:id on B, one stream on A to the end', async () => {
    const chat = new NodeChat({
      transport: new WebSocketChatTransport<UIMessage>({
        url: `${socketUrl(a)}?user=tester&roles=admin,approver`,
        webSocket: WebSocket as never,
        body: { app: 'image-studio' },
      }),
    });
    const sending = chat.sendMessage({ text: 'Generate 4 images' });
    await chat.until(
      (c) =>
        toolParts((c.lastMessage ?? userMessage('')) as UIMessage)[0]?.state ===
        'approval-requested',
    );
    const part = toolParts(chat.lastMessage as UIMessage)[0] as ToolPart;
    const onB = new JsonClient(`http://127.0.0.1:${b.port}`);
    const decided = await onB.post(`/api/approvals/${part.approval?.id}`, {
      approved: true,
      user_id: 'on-b',
    });
    expect(decided.body.status).toBe('completed');
    await sending;
    await chat.until((c) => c.status === 'ready');
    const done = chat.lastMessage as UIMessage;
    expect(toolParts(done)[0]?.state).toBe('output-available');
    expect(messageText(done)).toContain('Here are the 4 images');
    expect(chat.messages).toHaveLength(2);
  });
});
