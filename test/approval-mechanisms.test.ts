import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, type Holdpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import approvalTools, { effectRuns } from './support/approval-tools-app.js';
import { JsonClient } from './support/json-client.js';
import {
  finalMessage,
  invalidChunks,
  messageText,
  postChat,
  type ToolPart,
  toolParts,
  userMessage,
} from './support/ui-stream.js';

let holdpoint: Holdpoint;
let server: Server;
let api: JsonClient;

// Served as a host application would: the public API's Node handler on a plain http.Server.
beforeAll(async () => {
  holdpoint = createHoldpoint({ apps: [approvalTools], sweepIntervalSeconds: false });
  server = createServer(holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = new JsonClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await holdpoint.close();
});

interface Mechanism {
  query: string;
  tool: string;
  kind: 'confirmation' | 'input';
  hint: string;
  /** What the person sends back on approval, when anything. */
  payload?: Record<string, unknown>;
  /** What the tool's result holds after approval. */
  result: Record<string, unknown>;
}

const MECHANISMS: Record<string, Mechanism> = {
  'requireConfirmation: true': {
    query: 'always 5',
    tool: 'always_confirm',
    kind: 'confirmation',
    hint: 'Run always_confirm?',
    result: { status: 'done', amount: 5 },
  },
  'requireConfirmation as a predicate': {
    query: 'predicate 500',
    tool: 'confirm_above_100',
    kind: 'confirmation',
    hint: 'Move 500 (above 100)?',
    result: { status: 'done', amount: 500 },
  },
  // ADK-JS 2.0 alone refuses this answer on resume (`confirmation_not_required`: it never
  // stores the response that recorded the request); Holdpoint's segment session stores it.
  'toolContext.requestConfirmation({ hint, payload })': {
    query: 'asks 7',
    tool: 'asks_itself',
    kind: 'confirmation',
    hint: 'Move 7 credits? Add a note.',
    payload: { note: 'for rent' },
    result: { status: 'done', amount: 7, note: 'for rent' },
  },
  LongRunningFunctionTool: {
    query: 'value',
    tool: 'ask_value',
    kind: 'input',
    hint: 'ask_value needs your input.',
    payload: { colour: 'red' },
    result: { colour: 'red' },
  },
};

/** The JSON of the tool result the rules model echoes as `tool: {...}`. */
function echoedResult(text: string, tool: string): Record<string, unknown> {
  const prefix = `${tool}: `;
  expect(text.startsWith(prefix)).toBe(true);
  return JSON.parse(text.slice(prefix.length));
}

describe.each(Object.entries(MECHANISMS))('%s', (_name, mechanism) => {
  it('over REST: pauses with its hint, resumes on approval, the effect happens once', async () => {
    const start = await api.post('/api/agent/start', {
      query: mechanism.query,
      user_id: 'ann',
    });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ status: 'pending_approval', message: mechanism.hint });
    const [approval] = start.body.approvals;
    expect(approval).toMatchObject({
      kind: mechanism.kind,
      tool_name: mechanism.tool,
      hint: mechanism.hint,
    });

    const resumed = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      user_id: 'bob',
      decisions: [
        { approval_id: approval.approval_id, approved: true, payload: mechanism.payload },
      ],
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('completed');
    expect(resumed.body.invocation_id).toBe(start.body.invocation_id);
    const result = echoedResult(resumed.body.result, mechanism.tool);
    expect(result).toMatchObject(mechanism.result);
    if (typeof result.key === 'string') {
      expect(result.key).toMatch(/^hp_[0-9a-f]{40}$/);
      expect(effectRuns.get(result.key)).toBe(1);
    }

    const again = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      user_id: 'bob',
      approved: true,
    });
    expect(again.status).toBe(409);
  });

  it('over REST: a rejection is a rejection, and nothing runs', async () => {
    const start = await api.post('/api/agent/start', { query: mechanism.query, user_id: 'ann' });
    const runsBefore = [...effectRuns.values()].reduce((a, b) => a + b, 0);
    const resumed = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      user_id: 'bob',
      approved: false,
      reason: 'not today',
    });
    expect(resumed.body.status).toBe('completed');
    const result = echoedResult(resumed.body.result, mechanism.tool);
    expect(result.error).toEqual(expect.any(String));
    expect([...effectRuns.values()].reduce((a, b) => a + b, 0)).toBe(runsBefore);
  });

  it('over the AI SDK stream: asks, then the answer resumes the same message', async () => {
    const chatUrl = `${api.baseUrl}/api/chat`;
    const body = { id: `chat-${mechanism.tool}`, userId: 'ann' };
    const question = userMessage(mechanism.query);
    const first = await postChat(chatUrl, { ...body, messages: [question] });
    expect(await invalidChunks(first.chunks)).toEqual([]);
    const paused = await finalMessage(first.chunks);
    const part = toolParts(paused).find((p) => p.type === `tool-${mechanism.tool}`) as ToolPart;
    const answer: Partial<ToolPart> =
      mechanism.kind === 'confirmation'
        ? { state: 'approval-responded', approval: { id: part.approval?.id ?? '', approved: true } }
        : { state: 'output-available', output: mechanism.payload };
    expect(part.state).toBe(
      mechanism.kind === 'confirmation' ? 'approval-requested' : 'input-available',
    );
    const reply = {
      ...paused,
      parts: paused.parts.map((p) =>
        (p as unknown as ToolPart).toolCallId === part.toolCallId ? { ...p, ...answer } : p,
      ),
    } as typeof paused;

    const second = await postChat(chatUrl, { ...body, messages: [question, reply] });
    expect(await invalidChunks(second.chunks)).toEqual([]);
    expect(second.chunks.some((c) => c.type === 'error')).toBe(false);
    const done = await finalMessage(second.chunks, reply);
    expect(done.id).toBe(paused.id);
    expect(toolParts(done).find((p) => p.toolCallId === part.toolCallId)?.state).toBe(
      'output-available',
    );
    expect(messageText(done)).toContain(`${mechanism.tool}: `);
  });
});

describe('requireConfirmation as a predicate', () => {
  it('runs at once when the predicate says no', async () => {
    const start = await api.post('/api/agent/start', { query: 'predicate 5', user_id: 'ann' });
    expect(start.body.status).toBe('completed');
    expect(echoedResult(start.body.result, 'confirm_above_100')).toMatchObject({ amount: 5 });
  });
});
