import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { ChatSocketClient } from './support/chat-socket-client.js';
import { JsonClient, signedInAs, TESTER_ROLES } from './support/json-client.js';
import { NodeChat } from './support/node-chat.js';
import {
  finalMessage,
  messageText,
  type ToolPart,
  toolParts,
  userMessage,
} from './support/ui-stream.js';

// Issue 25 on both AI SDK streams: the reason of `addToolApprovalResponse` reaches the
// model; edited arguments and an answer in the tool's place go in the body's
// `decisions` (SSE, a socket's `send`) or in the socket's `decision` frame.
const APP = fileURLToPath(new URL('./support/rich-decisions-app.ts', import.meta.url));

let server: RunningServer;
let api: JsonClient;

beforeAll(async () => {
  const flags = ['--port', '0', '--log-level', 'silent', '--model', 'rules', '--store', 'memory'];
  server = await startServer(loadConfig(['--app', APP, ...flags], {}));
  api = new JsonClient(`http://127.0.0.1:${server.port}`, { user: 'chatter', roles: ['admin'] });
});
afterAll(async () => server.close());

/** The args hash the API shows for an approval of a session (what its decider saw). */
async function argsHashOf(sessionId: string, approvalId: string): Promise<string> {
  const { body } = await api.get(`/api/sessions/${sessionId}`);
  return body.pending_approvals.find((a: { approval_id: string }) => a.approval_id === approvalId)
    .args_hash;
}

function sseChat(id: string) {
  return new NodeChat({
    id,
    transport: new DefaultChatTransport<UIMessage>({
      api: `http://127.0.0.1:${server.port}/api/chat`,
      headers: () => signedInAs('chatter', ['admin']),
    }),
    sendAutomaticallyWhen: ({ messages }) =>
      lastAssistantMessageIsCompleteWithApprovalResponses({ messages }) ||
      lastAssistantMessageIsCompleteWithToolCalls({ messages }),
  });
}

/** Sends `text` and waits until the chat stops at its approval; the tool part and session. */
async function askedOver(chat: NodeChat, text: string, state = 'approval-requested') {
  await chat.sendMessage({ text });
  await chat.until(
    (c) => c.status === 'ready' && toolParts(c.lastMessage as UIMessage)[0]?.state === state,
  );
  const message = chat.lastMessage as UIMessage;
  const part = toolParts(message)[0] as ToolPart;
  const { sessionId } = message.metadata as { sessionId: string };
  return { part, sessionId, approvalId: part.approval?.id ?? '' };
}

const doneText = async (chat: NodeChat, state: string) => {
  await chat.until(
    (c) => c.status === 'ready' && toolParts(c.lastMessage as UIMessage)[0]?.state === state,
  );
  return messageText(chat.lastMessage as UIMessage);
};

describe('rich decisions over SSE (two-turn)', () => {
  it('approves with edited arguments given in the body by approval id', async () => {
    const chat = sseChat('sse-edit');
    const { sessionId, approvalId } = await askedOver(chat, 'pay 200 Jiro');
    const argsHash = await argsHashOf(sessionId, approvalId);
    const editedArgs = { amount: 150, recipient: 'Jiro', currency: 'USD' };
    await chat.addToolApprovalResponse({
      id: approvalId,
      approved: true,
      options: { body: { decisions: { [approvalId]: { argsHash, editedArgs } } } },
    });
    expect(await doneText(chat, 'output-available')).toContain('"amount":150');
  });

  it('answers in the tool’s place', async () => {
    const chat = sseChat('sse-respond');
    const { sessionId, approvalId } = await askedOver(chat, 'lookup weather');
    const argsHash = await argsHashOf(sessionId, approvalId);
    await chat.addToolApprovalResponse({
      id: approvalId,
      approved: true,
      options: {
        body: { decisions: { [approvalId]: { argsHash, response: { answer: 'sunny' } } } },
      },
    });
    const text = await doneText(chat, 'output-available');
    expect(text).toContain('{"answer":"sunny"}');
    expect(text).not.toContain('the tool looked up');
  });

  it('rejects with the reason of addToolApprovalResponse, which the model says', async () => {
    const chat = sseChat('sse-reason');
    const { approvalId } = await askedOver(chat, 'pay 200 Jiro');
    await chat.addToolApprovalResponse({
      id: approvalId,
      approved: false,
      reason: 'wrong recipient: pay Hana',
    });
    expect(await doneText(chat, 'output-denied')).toContain('wrong recipient: pay Hana');
  });

  it('declines an input request with the error text as the reason', async () => {
    const chat = sseChat('sse-input');
    const { part } = await askedOver(chat, 'value', 'input-available');
    await chat.addToolOutput({
      tool: 'ask_value' as never,
      toolCallId: part.toolCallId,
      state: 'output-error',
      errorText: 'no colour today',
    });
    expect(await doneText(chat, 'output-error')).toContain('no colour today');
  });

  it('refuses details of an approval the message does not answer, deciding nothing', async () => {
    const chat = sseChat('sse-stray');
    const { sessionId, approvalId } = await askedOver(chat, 'pay 200 Jiro');
    await chat.addToolApprovalResponse({
      id: approvalId,
      approved: true,
      options: { body: { decisions: { 'adk-elsewhere': { response: 'x' } } } },
    });
    await chat.until((c) => c.status === 'error');
    expect(chat.error?.message).toContain('VALIDATION_FAILED');
    const { body } = await api.get(`/api/sessions/${sessionId}`);
    expect(body.pause.decisions).toEqual([]);
  });
});

const socketUrl = () => `ws://127.0.0.1:${server.port}/api/chat/ws`;

/** Waits for the first chunk matching `predicate` among those collected so far. */
async function seen(chunks: UIMessageChunk[], predicate: (c: UIMessageChunk) => boolean) {
  for (let i = 0; i < 500; i++) {
    const found = chunks.find(predicate);
    if (found) return found;
    await sleep(10);
  }
  throw new Error(`chunk not seen in ${JSON.stringify(chunks)}`);
}

/** A continuous stream over a socket, open at its approval request; its end, and the request. */
async function waitingStream(chatter: ChatSocketClient, id: string, words: string) {
  const live: UIMessageChunk[] = [];
  const turn = chatter.turn(
    'r1',
    { id, messages: [userMessage(words)], body: { userId: 'chatter' } },
    (c) => live.push(c),
  );
  const request = (await seen(live, (c) => c.type === 'tool-approval-request')) as {
    approvalId: string;
    toolCallId: string;
  };
  const metadata = (await seen(
    live,
    (c) =>
      c.type === 'message-metadata' &&
      (c.messageMetadata as { status?: string }).status === 'paused',
  )) as { messageMetadata: { sessionId: string } };
  return { turn, request, sessionId: metadata.messageMetadata.sessionId };
}

describe('rich decisions over the WebSocket (continuous)', () => {
  it('a decision frame edits the call; the waiting stream carries the edited run to its end', async () => {
    const [chatter, decider] = await Promise.all([
      ChatSocketClient.connect(socketUrl(), signedInAs('chatter', ['admin'])),
      ChatSocketClient.connect(socketUrl(), signedInAs('approver', TESTER_ROLES)),
    ]);
    const { turn, request, sessionId } = await waitingStream(chatter, 'ws-edit', 'pay 200 Jiro');
    const argsHash = await argsHashOf(sessionId, request.approvalId);
    const result = await decider.decide({
      approvalId: request.approvalId,
      approved: true,
      argsHash,
      editedArgs: { amount: 90, recipient: 'Hana', currency: 'USD' },
    });
    expect(result).toMatchObject({ type: 'decision-result', status: 'completed' });
    const { chunks } = await turn;
    expect(messageText(await finalMessage(chunks))).toContain('"amount":90,"recipient":"Hana"');
    chatter.close();
    decider.close();
  });

  it('a decision frame rejects with a reason the model says', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(), signedInAs('chatter', ['admin']));
    const { turn, request } = await waitingStream(chatter, 'ws-reason', 'pay 200 Jiro');
    const result = await chatter.decide({
      approvalId: request.approvalId,
      approved: false,
      reason: 'over budget',
    });
    expect(result).toMatchObject({ type: 'decision-result', status: 'completed' });
    const { chunks } = await turn;
    expect(messageText(await finalMessage(chunks))).toContain('over budget');
    chatter.close();
  });

  it('a send answering the waiting stream carries its details in the body', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(), signedInAs('chatter', ['admin']));
    const { turn, request, sessionId } = await waitingStream(chatter, 'ws-send', 'lookup news');
    const argsHash = await argsHashOf(sessionId, request.approvalId);
    const answer = {
      role: 'user',
      parts: [
        {
          type: 'tool-adk_request_confirmation',
          toolCallId: request.approvalId,
          state: 'approval-responded',
          approval: { id: request.approvalId, approved: true },
        },
      ],
    } as unknown as UIMessage;
    const sent = await chatter.turn('r2', {
      id: 'ws-send',
      messages: [answer],
      body: {
        userId: 'chatter',
        sessionId,
        decisions: { [request.approvalId]: { argsHash, response: { answer: 'all quiet' } } },
      },
    });
    expect(sent).toMatchObject({ ended: 'end', chunks: [] });
    const { chunks } = await turn;
    expect(messageText(await finalMessage(chunks))).toContain('{"answer":"all quiet"}');
    chatter.close();
  });

  it('refuses a misspelt detail in a decision frame, deciding nothing', async () => {
    const chatter = await ChatSocketClient.connect(socketUrl(), signedInAs('chatter', ['admin']));
    const { request, sessionId } = await waitingStream(chatter, 'ws-strict', 'pay 200 Jiro');
    const refused = await chatter.decide({
      approvalId: request.approvalId,
      approved: true,
      ...({ edited_args: { amount: 1 } } as object),
    });
    expect(refused).toMatchObject({ type: 'decision-error', code: 'VALIDATION_FAILED' });
    const { body } = await api.get(`/api/sessions/${sessionId}`);
    expect(body.pause.decisions).toEqual([]);
    await api.post('/api/agent/cancel', { session_id: sessionId });
    chatter.close();
  });
});
