import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BaseAgent, LlmAgent, type LlmRequest, LongRunningFunctionTool } from '@google/adk';
import type { Content, FunctionResponse } from '@google/genai';
import {
  createHoldpoint,
  defineApp,
  type Holdpoint,
  memoryStore,
  type PendingOutcome,
  RulesModel,
  type RunEvent,
  type RunOutcome,
  redisStore,
  type Store,
} from 'holdpoint';
import { LoopAgent, ParallelAgent, SequentialAgent } from 'holdpoint/workflows';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  functionResponsesOf,
  latestCall,
  latestResponse,
  sayAndCall,
  textReply,
  toolCall,
} from '../../examples/shared/llm-history.js';
import { RedisScratch, TEST_REDIS_URL } from '../../src/store/redis/redis-scratch.test-support.js';
import { JsonClient } from '../support/json-client.js';
import {
  finalMessage,
  messageText,
  postChat,
  type ToolPart,
  toolParts,
  userMessage,
} from '../support/ui-stream.js';

// Seed 004 taken literally: an orchestrator LlmAgent hands off (transfer_to_agent) to a
// sub-agent with two sequential long-running tools, select_item then confirm_choice,
// each returning {status: "pending"} (the seed's tools) or undefined. The seed's
// script: "Pick something" pauses at select_item; answering {result: "option_a"}
// resumes and pauses at confirm_choice; answering {confirmed: true} resumes and the
// model summarises. Every resume must yield model content, at the root and with the
// orchestrator as a step of each workflow type, on both stores.

const scratch = new RedisScratch();
const opened: Holdpoint[] = [];
afterAll(async () => {
  await Promise.all(opened.map((h) => h.close()));
  await scratch.cleanup();
});

const STORES: Record<string, () => Store> = {
  memory: () => memoryStore(),
  redis: () => redisStore({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix }),
};

/** How the seed's long-running tools say "waiting for a person". */
const TOOL_STYLES = {
  'returns {status:"pending"}': async () => ({ status: 'pending' }),
  'returns undefined': async () => undefined,
} as const;
type ToolStyle = keyof typeof TOOL_STYLES;

const SELECTED = { result: 'option_a' };
const CONFIRMED = { confirmed: true };
const ASK_CONFIRM = 'You picked option_a. Please confirm it.';
const SUMMARY = 'You picked option_a, and you confirmed it.';

/** Model calls per agent, counted by the fake models. */
type Calls = Record<string, number>;

/**
 * What a real model refuses (Gemini does): function responses that do not answer the
 * calls of the turn right before them, one for one.
 */
function assertAnswersMatchCalls(request: LlmRequest): void {
  const names = (content: Content | undefined, kind: 'functionCall' | 'functionResponse') =>
    (content?.parts ?? []).flatMap((part) => (part[kind] ? [part[kind]?.name] : [])).sort();
  request.contents.forEach((content, i) => {
    const responses = names(content, 'functionResponse');
    const calls = names(request.contents[i - 1], 'functionCall');
    if (responses.length > 0 && JSON.stringify(responses) !== JSON.stringify(calls)) {
      throw new Error(`responses ${responses} do not answer the calls before them (${calls})`);
    }
  });
}

/** A rules model that counts its calls in `calls` under `name`. */
function countingModel(name: string, calls: Calls, respond: (r: LlmRequest) => Content) {
  return new RulesModel(name, (request) => {
    calls[name] = (calls[name] ?? 0) + 1;
    assertAnswersMatchCalls(request);
    return respond(request);
  });
}

const HAND_OFF = 'called tool `transfer_to_agent`';

/**
 * The picker's own traffic: the contents after the orchestrator last handed over
 * (ADK shows a sub-agent the orchestrator's transfer as "For context" text), so a
 * loop's next round starts over.
 */
function sinceHandOff(request: LlmRequest): Content[] {
  const contents = request.contents;
  for (let i = contents.length - 1; i >= 0; i--) {
    if ((contents[i]?.parts ?? []).some((part) => part.text?.includes(HAND_OFF))) {
      return contents.slice(i + 1);
    }
  }
  return contents;
}

const isPending = (response: FunctionResponse | undefined) =>
  (response?.response as { status?: unknown } | undefined)?.status === 'pending';

/**
 * The seed's picker instruction as rules: "First call select_item to let the user
 * pick. After they respond, call confirm_choice to confirm. After both are done,
 * summarize what was picked and confirmed." A pending result gets a waiting reply, as
 * a model would give — which a run that pauses at once never asks for.
 */
function pickerRules(request: LlmRequest): Content {
  const own = sinceHandOff(request);
  const last = functionResponsesOf(own.at(-1))[0];
  if (isPending(last)) return textReply('Waiting for your answer.');
  const confirmation = latestResponse(own, 'confirm_choice');
  if (confirmation) {
    const item = latestCall(own, 'confirm_choice')?.args?.item;
    const confirmed = (confirmation.response as { confirmed?: unknown }).confirmed === true;
    return textReply(`You picked ${item}, and you ${confirmed ? 'confirmed' : 'rejected'} it.`);
  }
  const selection = latestResponse(own, 'select_item');
  if (selection) {
    const item = String((selection.response as { result?: unknown }).result);
    return sayAndCall(`You picked ${item}. Please confirm it.`, 'confirm_choice', { item });
  }
  return toolCall('select_item', { options: ['option_a', 'option_b'] });
}

/** The seed's two agents: `orchestrator` hands every request to `picker`. */
function seedAgents(style: ToolStyle, calls: Calls, suffix = ''): LlmAgent {
  const longRunning = (name: string, description: string) =>
    new LongRunningFunctionTool({
      name,
      description,
      parameters: z.object({
        options: z.array(z.string()).optional(),
        item: z.string().optional(),
      }),
      execute: TOOL_STYLES[style],
    });
  const pickerName = `picker${suffix}`;
  const picker = new LlmAgent({
    name: pickerName,
    description: 'Lets the user pick an item, then confirm it.',
    model: countingModel(pickerName, calls, pickerRules),
    instruction:
      'First call select_item to let the user pick. After they respond, call confirm_choice ' +
      'to confirm. After both are done, summarize what was picked and confirmed.',
    tools: [
      longRunning('select_item', 'Step 1: user picks an item (blocks for user input).'),
      longRunning('confirm_choice', 'Step 2: user confirms the choice (blocks for user input).'),
    ],
  });
  const orchestratorName = `orchestrator${suffix}`;
  return new LlmAgent({
    name: orchestratorName,
    model: countingModel(orchestratorName, calls, () =>
      toolCall('transfer_to_agent', { agentName: pickerName }),
    ),
    instruction: 'Delegate to the picker agent.',
    subAgents: [picker],
  });
}

/** A workflow step after the picker: says one thing. */
function after(name: string, calls: Calls): LlmAgent {
  return new LlmAgent({
    name,
    model: countingModel(name, calls, () => textReply(`${name}: done`)),
    instruction: 'Say done.',
  });
}

interface Shape {
  build(style: ToolStyle, calls: Calls): BaseAgent;
  /** How many times the script runs in one run (a loop's rounds). */
  rounds: number;
  /** Other steps' model calls before the first pause (a parallel branch). */
  atStart: Calls;
  /** Other steps' model calls once the picker is done, per round. */
  afterPicker: Calls;
}

const SHAPES: Record<string, Shape> = {
  root: { build: seedAgents, rounds: 1, atStart: {}, afterPicker: {} },
  sequential: {
    build: (style, calls) =>
      new SequentialAgent({
        name: 'seq',
        subAgents: [seedAgents(style, calls), after('after', calls)],
      }),
    rounds: 1,
    atStart: {},
    afterPicker: { after: 1 },
  },
  loop: {
    build: (style, calls) =>
      new LoopAgent({
        name: 'loop',
        maxIterations: 2,
        subAgents: [seedAgents(style, calls), after('after', calls)],
      }),
    rounds: 2,
    atStart: {},
    afterPicker: { after: 1 },
  },
  parallel: {
    build: (style, calls) =>
      new ParallelAgent({
        name: 'par',
        subAgents: [seedAgents(style, calls), after('other', calls)],
      }),
    rounds: 1,
    atStart: { other: 1 },
    afterPicker: {},
  },
  'nested (a sequence inside a sequence)': {
    build: (style, calls) =>
      new SequentialAgent({
        name: 'outer',
        subAgents: [
          new SequentialAgent({
            name: 'inner',
            subAgents: [seedAgents(style, calls), after('after_inner', calls)],
          }),
          after('after_outer', calls),
        ],
      }),
    rounds: 1,
    atStart: {},
    afterPicker: { after_inner: 1, after_outer: 1 },
  },
  'nested (a loop in a parallel in a sequence)': {
    build: (style, calls) =>
      new SequentialAgent({
        name: 'outer',
        subAgents: [
          new ParallelAgent({
            name: 'par',
            subAgents: [
              new LoopAgent({
                name: 'loop',
                maxIterations: 1,
                subAgents: [seedAgents(style, calls)],
              }),
              after('other', calls),
            ],
          }),
          after('after_outer', calls),
        ],
      }),
    rounds: 1,
    atStart: { other: 1 },
    afterPicker: { after_outer: 1 },
  },
};

function paused(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') {
    throw new Error(`expected a pause, got ${JSON.stringify(outcome)}`);
  }
  return outcome;
}

/** The model calls made since `before`, per agent (agents not called are left out). */
function callsSince(before: Calls, now: Calls): Calls {
  return Object.fromEntries(
    Object.entries(now)
      .map(([name, n]) => [name, n - (before[name] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}

function sum(...all: Calls[]): Calls {
  const total: Calls = {};
  for (const calls of all) {
    for (const [name, n] of Object.entries(calls)) total[name] = (total[name] ?? 0) + n;
  }
  return total;
}

describe.each(Object.keys(STORES))('seed 004 (%s store)', (storeKind) => {
  function serve(agent: BaseAgent): Holdpoint {
    const holdpoint = createHoldpoint({
      apps: [defineApp({ name: 'repro', agent })],
      store: (STORES[storeKind] as () => Store)(),
      sweepIntervalSeconds: false,
    });
    opened.push(holdpoint);
    return holdpoint;
  }

  describe.each(Object.keys(TOOL_STYLES) as ToolStyle[])('tools %s', (style) => {
    it.each(Object.keys(SHAPES))(
      "the seed's script: orchestrator → picker %s",
      async (shapeName) => {
        const shape = SHAPES[shapeName] as Shape;
        const calls: Calls = {};
        const holdpoint = serve(shape.build(style, calls));
        /** Runs one request, with the model text it reported and the model calls it cost. */
        const step = async (run: (sink: (e: RunEvent) => void) => Promise<RunOutcome>) => {
          const texts: string[] = [];
          const before = { ...calls };
          const outcome = await run((event) => {
            if (event.type === 'text') texts.push(event.text);
          });
          return { outcome, texts, calls: callsSince(before, calls) };
        };
        const answer = (pause: PendingOutcome, payload: Record<string, unknown>) =>
          step((sink) =>
            holdpoint.resume(
              {
                sessionId: pause.sessionId,
                decidedBy: 'u',
                decisions: [
                  { approvalId: pause.approvals[0]?.approvalId ?? '', approved: true, payload },
                ],
              },
              sink,
            ),
          );

        // Step 1: the orchestrator hands over, the picker calls select_item and the run
        // pauses — without asking the model again about a pending result.
        const first = await step((sink) =>
          holdpoint.start({ userId: 'u', query: 'Pick something' }, sink),
        );
        let select = paused(first.outcome);
        expect(first.calls).toEqual(sum({ orchestrator: 1, picker: 1 }, shape.atStart));
        for (let round = 1; round <= shape.rounds; round++) {
          expect(select.approvals.map((a) => [a.kind, a.toolName])).toEqual([
            ['input', 'select_item'],
          ]);

          // Step 2: the user picks; the picker says so and calls confirm_choice.
          const second = await answer(select, SELECTED);
          const confirm = paused(second.outcome);
          expect(confirm.invocationId).toBe(select.invocationId);
          expect(confirm.approvals.map((a) => [a.kind, a.toolName, a.args])).toEqual([
            ['input', 'confirm_choice', { item: 'option_a' }],
          ]);
          expect(second.texts).toEqual([ASK_CONFIRM]);
          expect(second.calls).toEqual({ picker: 1 });

          // Step 3: the user confirms; the picker summarises (the seed's bug: no content).
          const third = await answer(confirm, CONFIRMED);
          expect(third.texts[0]).toBe(SUMMARY);
          const nextRound: Calls = round < shape.rounds ? { orchestrator: 1, picker: 1 } : {};
          expect(third.calls).toEqual(sum({ picker: 1 }, shape.afterPicker, nextRound));
          if (round < shape.rounds) {
            select = paused(third.outcome);
            expect(select.invocationId).toBe(confirm.invocationId);
          } else {
            expect(third.outcome).toMatchObject({ status: 'completed' });
            expect((third.outcome as { result: string }).result).toContain(SUMMARY);
          }
        }
      },
    );
  });

  it('over the AI SDK chat (POST /api/chat, SSE): tool outputs answer both inputs (orchestrator → picker in a sequence)', async () => {
    const calls: Calls = {};
    const holdpoint = serve(SHAPES.sequential?.build('returns undefined', calls) as BaseAgent);
    const server: Server = createServer(holdpoint.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const chatUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`;
      const body = { id: `chat-${randomUUID()}`, userId: 'tester' };
      const question = userMessage('Pick something');
      /** The assistant message with `name`'s tool part answered by `output`, as a client posts it. */
      const answer = (
        message: Awaited<ReturnType<typeof finalMessage>>,
        name: string,
        output: unknown,
      ) => ({
        ...message,
        parts: message.parts.map((part) =>
          (part as unknown as ToolPart).type === `tool-${name}`
            ? ({ ...part, state: 'output-available', output } as typeof part)
            : part,
        ),
      });
      const first = await postChat(chatUrl, { ...body, messages: [question] });
      expect(first.status).toBe(200);
      const m1 = await finalMessage(first.chunks);
      expect(toolParts(m1).find((p) => p.type === 'tool-select_item')?.state).toBe(
        'input-available',
      );

      const a1 = answer(m1, 'select_item', SELECTED);
      const second = await postChat(chatUrl, { ...body, messages: [question, a1] });
      const m2 = await finalMessage(second.chunks, a1);
      expect(toolParts(m2).find((p) => p.type === 'tool-confirm_choice')).toMatchObject({
        state: 'input-available',
        input: { item: 'option_a' },
      });
      expect(messageText(m2)).toContain(ASK_CONFIRM);

      const a2 = answer(m2, 'confirm_choice', CONFIRMED);
      const third = await postChat(chatUrl, { ...body, messages: [question, a2] });
      expect(third.done).toBe(true);
      const m3 = await finalMessage(third.chunks, a2);
      expect(messageText(m3)).toContain(SUMMARY);
      expect(messageText(m3)).toContain('after: done');
      expect(m3.id).toBe(m1.id);
      expect(calls).toEqual({ orchestrator: 1, picker: 3, after: 1 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('over HTTP: POST /api/agent/start, then /api/agent/resume with payloads (orchestrator → picker in a sequence)', async () => {
    const calls: Calls = {};
    const holdpoint = serve(
      SHAPES.sequential?.build('returns {status:"pending"}', calls) as BaseAgent,
    );
    const server: Server = createServer(holdpoint.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const api = new JsonClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const start = await api.post('/api/agent/start', { query: 'Pick something' });
      expect(start.status).toBe(200);
      expect(start.body).toMatchObject({
        status: 'pending_approval',
        approvals: [{ kind: 'input', tool_name: 'select_item' }],
      });
      const resume = (
        pause: { session_id: string; approvals: { approval_id: string }[] },
        payload: unknown,
      ) =>
        api.post('/api/agent/resume', {
          session_id: pause.session_id,
          decisions: [{ approval_id: pause.approvals[0]?.approval_id, approved: true, payload }],
        });
      const confirm = await resume(start.body, SELECTED);
      expect(confirm.status).toBe(200);
      expect(confirm.body).toMatchObject({
        status: 'pending_approval',
        approvals: [{ kind: 'input', tool_name: 'confirm_choice', args: { item: 'option_a' } }],
      });
      const done = await resume(confirm.body, CONFIRMED);
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ status: 'completed' });
      expect(done.body.result).toBe(`${SUMMARY}\n\nafter: done`);
      expect(calls).toEqual({ orchestrator: 1, picker: 3, after: 1 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe.each(Object.keys(STORES))('seed 004, two pickers side by side (%s store)', (storeKind) => {
  function serveSideBySide(style: ToolStyle, calls: Calls): Holdpoint {
    const holdpoint = createHoldpoint({
      apps: [
        defineApp({
          name: 'repro',
          agent: new ParallelAgent({
            name: 'par',
            subAgents: [seedAgents(style, calls, '_a'), seedAgents(style, calls, '_b')],
          }),
        }),
      ],
      store: (STORES[storeKind] as () => Store)(),
      sweepIntervalSeconds: false,
    });
    opened.push(holdpoint);
    return holdpoint;
  }

  it('a cancelled pause of both branches: the next run starts over in each, its history balanced', async () => {
    const calls: Calls = {};
    const holdpoint = serveSideBySide('returns undefined', calls);
    const select = paused(await holdpoint.start({ userId: 'u', query: 'Pick something' }));
    await holdpoint.cancel({ sessionId: select.sessionId, actor: 'u' });
    const again = paused(
      await holdpoint.start({ userId: 'u', query: 'Pick something', sessionId: select.sessionId }),
    );
    expect(again.approvals.map((a) => a.toolName)).toEqual(['select_item', 'select_item']);
    expect(calls).toEqual({ orchestrator_a: 2, orchestrator_b: 2, picker_a: 2, picker_b: 2 });
  });

  it.each(Object.keys(TOOL_STYLES) as ToolStyle[])(
    'a parallel agent of two orchestrator → picker branches, tools %s',
    async (style) => {
      const calls: Calls = {};
      const holdpoint = serveSideBySide(style, calls);
      const answerAll = (pause: PendingOutcome, payload: Record<string, unknown>) =>
        holdpoint.resume({
          sessionId: pause.sessionId,
          decidedBy: 'u',
          decisions: pause.approvals.map((a) => ({
            approvalId: a.approvalId,
            approved: true,
            payload,
          })),
        });
      const select = paused(await holdpoint.start({ userId: 'u', query: 'Pick something' }));
      expect(select.approvals.map((a) => a.toolName)).toEqual(['select_item', 'select_item']);
      const confirm = paused(await answerAll(select, SELECTED));
      expect(confirm.approvals.map((a) => a.toolName)).toEqual([
        'confirm_choice',
        'confirm_choice',
      ]);
      const done = await answerAll(confirm, CONFIRMED);
      expect(done).toMatchObject({ status: 'completed', result: `${SUMMARY}\n\n${SUMMARY}` });
      expect(calls).toEqual({ orchestrator_a: 1, orchestrator_b: 1, picker_a: 3, picker_b: 3 });
    },
  );
});
