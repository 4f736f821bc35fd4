import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FunctionTool, LlmAgent, type LlmRequest, LongRunningFunctionTool } from '@google/adk';
import type { Content } from '@google/genai';
import { createHoldpoint, defineApp, type Holdpoint, RulesModel } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  functionResponsesOf,
  lastContent,
  textReply,
  toolCall,
} from '../examples/shared/llm-history.js';
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
      pause_id: start.body.pause_id,
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
      pause_id: start.body.pause_id,
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

describe('a sub-agent’s tool that asks for confirmation itself', () => {
  it('resumes, and no agent’s model ever sees the stand-in response Holdpoint stores', async () => {
    const seenByModels: string[] = [];
    const respond = (reply: (request: LlmRequest) => Content) => (request: LlmRequest) => {
      seenByModels.push(JSON.stringify(request.contents));
      return reply(request);
    };
    const transfer = (agentName: string): Content => ({
      role: 'model',
      parts: [{ functionCall: { name: 'transfer_to_agent', args: { agentName } } }],
    });
    const asks = new FunctionTool({
      name: 'asks_itself',
      description: 'Asks a person itself.',
      parameters: z.object({ amount: z.number() }),
      execute: async ({ amount }, toolContext) => {
        if (!toolContext?.toolConfirmation) {
          toolContext?.requestConfirmation({ hint: `Move ${amount}?` });
          return { status: 'pending' };
        }
        return { status: 'moved', amount };
      },
    });
    const payer = new LlmAgent({
      name: 'payer',
      description: 'Moves amounts.',
      model: new RulesModel(
        'payer',
        respond((request) =>
          functionResponsesOf(lastContent(request))[0]
            ? transfer('root')
            : toolCall('asks_itself', { amount: 5 }),
        ),
      ),
      tools: [asks],
    });
    const root = new LlmAgent({
      name: 'root',
      model: new RulesModel(
        'root',
        // Only the person's own message goes to the payer; anything after it is the handback.
        respond((request) =>
          lastContent(request)?.parts?.[0]?.text === 'move 5'
            ? transfer('payer')
            : textReply('root is back'),
        ),
      ),
      subAgents: [payer],
    });
    const local = createHoldpoint({
      apps: [defineApp({ name: 'handover', agent: root })],
      sweepIntervalSeconds: false,
    });
    const paused = await local.start({ userId: 'ann', query: 'move 5' });
    expect(paused).toMatchObject({ status: 'pending_approval', message: 'Move 5?' });
    const done = await local.resume({
      sessionId: paused.sessionId,
      decidedBy: 'ann',
      approved: true,
    });
    expect(done).toMatchObject({ status: 'completed', result: 'root is back' });
    const again = await local.start({ userId: 'ann', query: 'hello', sessionId: paused.sessionId });
    expect(again.status).toBe('completed');
    await local.close();
    expect(seenByModels.join('\n')).toContain('moved');
    expect(seenByModels.join('\n')).not.toContain('awaiting_confirmation');
  });
});

describe('an app hint that fails on the model’s arguments', () => {
  it('falls back to the default hint; the run pauses and its history stays readable', async () => {
    const pick = new LongRunningFunctionTool({
      name: 'pick',
      description: 'Asks a person to pick.',
      parameters: z.object({ items: z.array(z.string()).optional() }),
      execute: async () => undefined,
    });
    const agent = new LlmAgent({
      name: 'picky',
      model: new RulesModel('picky', () => toolCall('pick', {})),
      tools: [pick],
    });
    const local = createHoldpoint({
      apps: [
        defineApp({
          name: 'picky',
          agent,
          approvals: { pick: { hint: (args) => (args.items as string[]).join(', ') } },
        }),
      ],
      sweepIntervalSeconds: false,
    });
    const paused = await local.start({ userId: 'ann', query: 'pick' });
    expect(paused).toMatchObject({ status: 'pending_approval', message: 'pick needs your input.' });
    const { turns } = await local.sessions.history(paused.sessionId);
    expect(turns[0]?.events).toContainEqual(
      expect.objectContaining({ type: 'approval-requested' }),
    );
    await local.close();
  });
});

describe('a confirmation and an input asked in the same model turn', () => {
  it('resumes once both are decided, and the model gets both answers', async () => {
    const start = await api.post('/api/agent/start', { query: 'both 5', user_id: 'ann' });
    expect(start.body.approvals.map((a: { kind: string }) => a.kind).sort()).toEqual([
      'confirmation',
      'input',
    ]);
    const decisions = start.body.approvals.map((a: { approval_id: string; kind: string }) => ({
      approval_id: a.approval_id,
      approved: true,
      payload: a.kind === 'input' ? { colour: 'red' } : undefined,
    }));
    const done = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      user_id: 'bob',
      decisions,
    });
    expect(done.body.status).toBe('completed');
    expect(done.body.result).toContain('ask_value: {"colour":"red"}');
    expect(done.body.result).toMatch(/always_confirm: \{"status":"done"/);
  });
});
