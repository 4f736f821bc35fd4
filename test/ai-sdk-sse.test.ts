import { fileURLToPath } from 'node:url';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { exampleConfig } from './support/example-apps.js';
import { signedInAs, TESTER, TESTER_ROLES } from './support/json-client.js';
import { NodeChat } from './support/node-chat.js';
import { ops } from './support/principals.js';
import {
  expectGoldenStream,
  finalMessage,
  invalidChunks,
  messageText,
  postChat,
  type SseTurn,
  type ToolPart,
  toolParts,
  userMessage,
} from './support/ui-stream.js';

let server: RunningServer;
let chatUrl: string;

beforeAll(async () => {
  server = await startServer(exampleConfig());
  chatUrl = `http://127.0.0.1:${server.port}/api/chat`;
});
afterAll(async () => server.close());

const fixture = (name: string) =>
  fileURLToPath(new URL(`./fixtures/sse/${name}.json`, import.meta.url));

/** Checks what every turn must hold, and the golden file; returns the turn. */
async function checked(turn: SseTurn, name: string): Promise<SseTurn> {
  expect(turn.status).toBe(200);
  expect(turn.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
  expect(turn.headers.get('content-type')).toContain('text/event-stream');
  expect(turn.done).toBe(true);
  await expectGoldenStream(turn.chunks, fixture(name));
  return turn;
}

/** The assistant message with one tool part changed, as the client would post it. */
function answered(message: UIMessage, toolCallId: string, change: Partial<ToolPart>): UIMessage {
  return {
    ...message,
    parts: message.parts.map((p) =>
      (p as unknown as ToolPart).toolCallId === toolCallId ? ({ ...p, ...change } as typeof p) : p,
    ),
  };
}

describe.each([
  ['image-studio', 'Generate 10 images', 'request_image_generation'],
  ['payments', 'Send $200 to Jiro', 'process_payment'],
])('two-turn approvals over SSE: %s', (app, words, tool) => {
  it.each([
    ['approved', true],
    ['denied', false],
  ])('%s', async (label, approved) => {
    const body = { id: `chat-${app}-${label}`, app, userId: 'tester' };
    const question = userMessage(words);
    const first = await checked(
      await postChat(chatUrl, { ...body, messages: [question] }),
      `${app}-${label}-1`,
    );
    expect(first.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    const paused = await finalMessage(first.chunks);
    const [part] = toolParts(paused);
    expect(part).toMatchObject({ type: `tool-${tool}`, state: 'approval-requested' });
    expect(paused.metadata).toMatchObject({ sessionId: expect.any(String), status: 'paused' });

    const reply = answered(paused, part?.toolCallId ?? '', {
      state: 'approval-responded',
      approval: { id: part?.approval?.id ?? '', approved, reason: approved ? 'ok' : 'no thanks' },
    });
    // A payment is decided by someone else (an approver), never by the one who asked.
    const decider = app === 'payments' ? { ...body, userId: 'maria' } : body;
    const second = await checked(
      await postChat(chatUrl, { ...decider, messages: [question, reply] }),
      `${app}-${label}-2`,
    );
    expect(second.chunks[0]).toEqual({ type: 'start', messageId: paused.id });
    expect(second.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(second.chunks.some((c) => c.type === 'error')).toBe(false);
    const done = await finalMessage(second.chunks, reply);
    expect(done.id).toBe(paused.id);
    expect(toolParts(done)[0]?.state).toBe(approved ? 'output-available' : 'output-denied');
    expect(done.metadata).toMatchObject({
      sessionId: (paused.metadata as { sessionId: string }).sessionId,
      invocationId: (paused.metadata as { invocationId: string }).invocationId,
      status: 'completed',
    });
    expect(messageText(done)).toMatch(
      approved ? /Here are the 10 images|Sent 200 USD/ : /no thanks/,
    );
  });
});

describe('picker over SSE: input requests answered with tool outputs', () => {
  it('select_item then confirm_choice, both resume the run', async () => {
    const body = { id: 'chat-picker', app: 'picker', userId: 'tester' };
    const question = userMessage('Pick a fruit', 'u1');
    const first = await checked(
      await postChat(chatUrl, { ...body, messages: [question] }),
      'picker-1',
    );
    const m1 = await finalMessage(first.chunks);
    const select = toolParts(m1).find((p) => p.type === 'tool-select_item');
    expect(select).toMatchObject({
      state: 'input-available',
      input: { options: ['Apple', 'Banana', 'Cherry'] },
    });

    const a1 = answered(m1, select?.toolCallId ?? '', {
      state: 'output-available',
      output: { item: 'Banana' },
    });
    const second = await checked(
      await postChat(chatUrl, { ...body, messages: [question, a1] }),
      'picker-2',
    );
    const m2 = await finalMessage(second.chunks, a1);
    const confirm = toolParts(m2).find((p) => p.type === 'tool-confirm_choice');
    expect(confirm).toMatchObject({ state: 'input-available', input: { item: 'Banana' } });

    const a2 = answered(m2, confirm?.toolCallId ?? '', {
      state: 'output-available',
      output: { confirmed: true },
    });
    const third = await checked(
      await postChat(chatUrl, { ...body, messages: [question, a2] }),
      'picker-3',
    );
    const m3 = await finalMessage(third.chunks, a2);
    expect(messageText(m3)).toContain('You picked Banana, and it is confirmed.');
    expect(m3.id).toBe(m1.id);
  });
});

describe('picker over SSE: declining an input request', () => {
  it('an output-error answer declines it; the run goes on without a choice', async () => {
    const body = { id: 'chat-picker-declined', app: 'picker', userId: 'tester' };
    const question = userMessage('Pick a fruit', 'u1');
    const first = await checked(
      await postChat(chatUrl, { ...body, messages: [question] }),
      'picker-declined-1',
    );
    const m1 = await finalMessage(first.chunks);
    const select = toolParts(m1).find((p) => p.type === 'tool-select_item') as ToolPart;
    const declined = answered(m1, select.toolCallId, {
      state: 'output-error',
      errorText: 'none of these',
    } as Partial<ToolPart>);
    const second = await checked(
      await postChat(chatUrl, { ...body, messages: [question, declined] }),
      'picker-declined-2',
    );
    const m2 = await finalMessage(second.chunks, declined);
    expect(messageText(m2)).toContain('Nothing was picked.');
    const { sessionId } = m2.metadata as { sessionId: string };
    const { entries: audit } = await server.holdpoint.runtime.operations.readAudit(
      { sessionId },
      ops,
    );
    expect(audit.find((e) => e.action === 'decided')).toMatchObject({
      approved: false,
      reason: 'none of these',
    });
  });
});

describe('errors over SSE', () => {
  it('malformed bodies get a 400 with a code, not a stream', async () => {
    for (const body of [
      {},
      { id: 'x', messages: [] },
      { id: 'x', messages: [{ id: 'm', role: 'robot', parts: [] }] },
    ]) {
      const response = await fetch(chatUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...TESTER },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe('VALIDATION_FAILED');
    }
    const broken = await fetch(chatUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...TESTER },
      body: '{"id":',
    });
    expect((await broken.json()).error.code).toBe('INVALID_JSON');
  });

  it('deciding twice, an unknown approval, and a message while paused stream a clear error', async () => {
    const body = { id: 'chat-errors', userId: 'tester' };
    const question = userMessage('Generate 4 images', 'u1');
    const paused = await finalMessage(
      (await postChat(chatUrl, { ...body, messages: [question] })).chunks,
    );
    const part = toolParts(paused)[0] as ToolPart;
    const sessionId = (paused.metadata as { sessionId: string }).sessionId;

    const busy = await postChat(chatUrl, {
      ...body,
      messages: [question, paused, userMessage('Generate 2 images', 'u2')],
    });
    expect(await invalidChunks(busy.chunks)).toEqual([]);
    expect(busy.chunks).toContainEqual({
      type: 'error',
      errorText: expect.stringMatching(/^SESSION_PAUSED: /),
    });

    const forged = answered(paused, part.toolCallId, {
      state: 'approval-responded',
      approval: { id: 'adk-forged', approved: true },
    });
    const unknown = await postChat(chatUrl, { ...body, messages: [question, forged] });
    expect(unknown.chunks).toContainEqual({
      type: 'error',
      errorText: expect.stringMatching(/^APPROVAL_NOT_FOUND: /),
    });
    expect((await server.holdpoint.runtime.operations.getSession(sessionId, ops)).meta.status).toBe(
      'paused',
    );

    const reply = answered(paused, part.toolCallId, {
      state: 'approval-responded',
      approval: { id: part.approval?.id ?? '', approved: true },
    });
    const ok = await postChat(chatUrl, { ...body, messages: [question, reply] });
    expect(ok.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    const twice = await postChat(chatUrl, { ...body, messages: [question, reply] });
    expect(twice.chunks).toContainEqual({
      type: 'error',
      errorText: expect.stringMatching(/^ALREADY_DECIDED: /),
    });
    const { entries: audit } = await server.holdpoint.runtime.operations.readAudit(
      { sessionId },
      ops,
    );
    expect(audit.filter((e) => e.action === 'executed')).toHaveLength(1);
  });
});

describe('the real AI SDK client (DefaultChatTransport) against the server', () => {
  /** Who the transport signs in as from its next request on. */
  let signedIn = 'node-client';
  beforeEach(() => {
    signedIn = 'node-client';
  });
  const transport = (app: string) =>
    new DefaultChatTransport<UIMessage>({
      api: chatUrl,
      headers: () => signedInAs(signedIn, TESTER_ROLES),
      body: { app },
    });

  it('addToolApprovalResponse + sendAutomaticallyWhen continue the same message to the result', async () => {
    const chat = new NodeChat({
      transport: transport('image-studio'),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'Generate 10 images' });
    await chat.until(
      (c) =>
        c.status === 'ready' &&
        toolParts(c.lastMessage as UIMessage)[0]?.state === 'approval-requested',
    );
    const message = chat.lastMessage as UIMessage;
    const part = toolParts(message)[0] as ToolPart;
    await chat.addToolApprovalResponse({
      id: part.approval?.id ?? '',
      approved: true,
      reason: 'looks fine',
    });
    await chat.until(
      (c) =>
        c.status === 'ready' &&
        toolParts(c.lastMessage as UIMessage)[0]?.state === 'output-available',
    );
    expect(chat.messages).toHaveLength(2);
    const done = chat.lastMessage as UIMessage;
    expect(done.id).toBe(message.id);
    expect(messageText(done)).toContain('Here are the 10 images');
    expect((toolParts(done)[0]?.output as { artifacts?: string[] })?.artifacts).toHaveLength(10);
    const { sessionId } = done.metadata as { sessionId: string };
    const { entries: audit } = await server.holdpoint.runtime.operations.readAudit(
      { sessionId },
      ops,
    );
    expect(audit.find((e) => e.action === 'decided')).toMatchObject({
      actor: 'node-client',
      reason: 'looks fine',
      approved: true,
    });
  });

  it('a denial streams output-denied, never an error', async () => {
    const chat = new NodeChat({
      transport: transport('payments'),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: '次郎さんに200ドル送金してください' });
    await chat.until(
      (c) =>
        c.status === 'ready' &&
        toolParts(c.lastMessage as UIMessage)[0]?.state === 'approval-requested',
    );
    const part = toolParts(chat.lastMessage as UIMessage)[0] as ToolPart;
    await chat.addToolApprovalResponse({
      id: part.approval?.id ?? '',
      approved: false,
      reason: 'wrong person',
    });
    await chat.until(
      (c) =>
        c.status === 'ready' && toolParts(c.lastMessage as UIMessage)[0]?.state === 'output-denied',
    );
    expect(chat.error).toBeUndefined();
    expect(messageText(chat.lastMessage as UIMessage)).toContain('wrong person');
  });

  it('several approvals in one step: the run continues once all are answered', async () => {
    const chat = new NodeChat({
      transport: transport('payments'),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'Send $200 to Jiro and $50 to Ana' });
    await chat.until(
      (c) =>
        c.status === 'ready' &&
        toolParts(c.lastMessage as UIMessage).filter((p) => p.state === 'approval-requested')
          .length === 2,
    );
    const [jiro, ana] = toolParts(chat.lastMessage as UIMessage) as ToolPart[];
    // Payments are approved by someone other than the one who asked.
    signedIn = 'maria';
    await chat.addToolApprovalResponse({ id: jiro?.approval?.id ?? '', approved: true });
    expect(toolParts(chat.lastMessage as UIMessage).map((p) => p.state)).toEqual([
      'approval-responded',
      'approval-requested',
    ]);
    await chat.addToolApprovalResponse({ id: ana?.approval?.id ?? '', approved: false });
    await chat.until(
      (c) =>
        c.status === 'ready' &&
        toolParts(c.lastMessage as UIMessage).every((p) => p.state.startsWith('output-')),
    );
    expect(toolParts(chat.lastMessage as UIMessage).map((p) => p.state)).toEqual([
      'output-available',
      'output-denied',
    ]);
    expect(messageText(chat.lastMessage as UIMessage)).toMatch(
      /Sent 200 USD to Jiro .*The payment to Ana was not sent/,
    );
  });

  it('input requests with addToolOutput + lastAssistantMessageIsCompleteWithToolCalls (picker)', async () => {
    const chat = new NodeChat({
      transport: transport('picker'),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    });
    await chat.sendMessage({ text: 'Pick a fruit' });
    const waiting = (name: string) => (c: NodeChat) =>
      c.status === 'ready' &&
      toolParts(c.lastMessage as UIMessage).some(
        (p) => p.type === `tool-${name}` && p.state === 'input-available',
      );
    await chat.until(waiting('select_item'));
    const select = toolParts(chat.lastMessage as UIMessage).find(
      (p) => p.type === 'tool-select_item',
    ) as ToolPart;
    await chat.addToolOutput({
      tool: 'select_item',
      toolCallId: select.toolCallId,
      output: { item: 'Cherry' },
    });
    await chat.until(waiting('confirm_choice'));
    const confirm = toolParts(chat.lastMessage as UIMessage).find(
      (p) => p.type === 'tool-confirm_choice',
    ) as ToolPart;
    await chat.addToolOutput({
      tool: 'confirm_choice',
      toolCallId: confirm.toolCallId,
      output: { confirmed: true },
    });
    await chat.until(
      (c) => c.status === 'ready' && messageText(c.lastMessage as UIMessage).includes('confirmed'),
    );
    expect(messageText(chat.lastMessage as UIMessage)).toContain(
      'You picked Cherry, and it is confirmed.',
    );
    expect(chat.messages).toHaveLength(2);
  });
});
