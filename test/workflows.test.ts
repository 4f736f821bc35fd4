import {
  BaseAgent,
  type Event,
  FunctionTool,
  type InvocationContext,
  LlmAgent,
  LongRunningFunctionTool,
} from '@google/adk';
import {
  createHoldpoint,
  defineApp,
  type Holdpoint,
  memoryStore,
  type PendingOutcome,
  RulesModel,
  type RunOutcome,
  redisStore,
  type Store,
} from 'holdpoint';
import {
  agentStateEvent,
  endOfAgentEvent,
  LoopAgent,
  loadAgentState,
  ParallelAgent,
  runStep,
  SequentialAgent,
  type StepEnd,
} from 'holdpoint/workflows';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  functionResponsesOf,
  lastContent,
  textReply,
  toolCall,
} from '../examples/shared/llm-history.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';

// Workflow agents pause at the step that asks, and resume inside it: a pause/resume
// matrix over sequential, loop, parallel and nested workflows, pausing at the first,
// a middle and the last step, approved and rejected, on both stores.
const scratch = new RedisScratch();
const opened: Holdpoint[] = [];
afterAll(async () => {
  await Promise.all(opened.map((h) => h.close()));
  await scratch.cleanup();
});

const stores: Record<string, () => Store> = {
  memory: () => memoryStore(),
  redis: () => redisStore({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix }),
};

/** Every tool execution, as `<step>`, in order. */
type Ran = string[];

/** A step: an LlmAgent that calls its own tool once (gated: needs approval), then says done. */
function step(name: string, ran: Ran, gated = false): LlmAgent {
  const tool = new FunctionTool({
    name: `${name}_tool`,
    description: `Does ${name}.`,
    parameters: z.object({}),
    requireConfirmation: gated,
    execute: async () => {
      ran.push(name);
      return { done: name };
    },
  });
  const model = new RulesModel(name, (request) => {
    const response = functionResponsesOf(lastContent(request))[0];
    if (response?.name === tool.name)
      return textReply(`${name}: ${JSON.stringify(response.response)}`);
    return toolCall(tool.name, {});
  });
  return new LlmAgent({ name, model, instruction: `Run ${name}.`, tools: [tool] });
}

/** Seed 004 as a step: a sub-agent that asks two values, one after the other. */
function picker(ran: Ran): LlmAgent {
  const ask = (name: string) =>
    new LongRunningFunctionTool({
      name,
      description: `Asks a person: ${name}.`,
      parameters: z.object({}),
      execute: async () => undefined,
    });
  const model = new RulesModel('picker', (request) => {
    const response = functionResponsesOf(lastContent(request))[0];
    if (response?.name === 'select_item') return toolCall('confirm_choice', {});
    if (response?.name === 'confirm_choice') {
      ran.push('picker');
      return textReply(`picked ${JSON.stringify(response.response)}`);
    }
    return toolCall('select_item', {});
  });
  return new LlmAgent({
    name: 'picker',
    model,
    instruction: 'Pick.',
    tools: [ask('select_item'), ask('confirm_choice')],
  });
}

/** A custom agent that runs its sub-agents one by one, checkpointing the next one after each. */
class StepsAgent extends BaseAgent {
  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    const state = loadAgentState<{ next: number }>(ctx, this);
    const end: StepEnd = { paused: false, escalated: false };
    for (let i = state?.next ?? 0; i < this.subAgents.length; i++) {
      yield* runStep(this.subAgents[i] as BaseAgent, ctx, end);
      if (end.paused) return;
      yield agentStateEvent(ctx, this, { next: i + 1 });
    }
    yield endOfAgentEvent(ctx, this);
  }

  // biome-ignore lint/correctness/useYield: not used live
  protected async *runLiveImpl(): AsyncGenerator<Event, void, void> {
    throw new Error('not live');
  }
}

function paused(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') {
    throw new Error(`expected a pause, got ${JSON.stringify(outcome)}`);
  }
  return outcome;
}

describe.each(Object.keys(stores))(
  'workflow agents pause and resume at the right step (%s)',
  (kind) => {
    function serve(agent: BaseAgent): Holdpoint {
      const holdpoint = createHoldpoint({
        apps: [defineApp({ name: 'flow', agent })],
        store: (stores[kind] as () => Store)(),
        sweepIntervalSeconds: false,
      });
      opened.push(holdpoint);
      return holdpoint;
    }
    const decide = (holdpoint: Holdpoint, pause: PendingOutcome, approved: boolean) =>
      holdpoint.resume({ sessionId: pause.sessionId, decidedBy: 'ann', approved });

    it.each([
      [0, true],
      [1, true],
      [2, true],
      [1, false],
    ])(
      'sequential: pauses at step %i, nothing after it runs first; approved=%s',
      async (k, approved) => {
        const ran: Ran = [];
        const names = ['a', 'b', 'c'];
        const holdpoint = serve(
          new SequentialAgent({
            name: 'seq',
            subAgents: names.map((name, i) => step(name, ran, i === k)),
          }),
        );
        const pause = paused(await holdpoint.start({ userId: 'ann', query: 'go' }));
        expect(pause.approvals.map((a) => a.toolName)).toEqual([`${names[k]}_tool`]);
        expect(ran).toEqual(names.slice(0, k));
        const done = await decide(holdpoint, pause, approved);
        expect(done.status).toBe('completed');
        expect(ran).toEqual(approved ? names : names.filter((_, i) => i !== k));
      },
    );

    it.each([
      [0, true],
      [1, true],
      [2, true],
      [1, false],
    ])(
      'custom: pauses at step %i, nothing after it runs first; approved=%s',
      async (k, approved) => {
        const ran: Ran = [];
        const names = ['a', 'b', 'c'];
        const holdpoint = serve(
          new StepsAgent({
            name: 'steps',
            subAgents: names.map((name, i) => step(name, ran, i === k)),
          }),
        );
        const pause = paused(await holdpoint.start({ userId: 'ann', query: 'go' }));
        expect(pause.approvals.map((a) => a.toolName)).toEqual([`${names[k]}_tool`]);
        expect(ran).toEqual(names.slice(0, k));
        expect((await decide(holdpoint, pause, approved)).status).toBe('completed');
        expect(ran).toEqual(approved ? names : names.filter((_, i) => i !== k));
      },
    );

    it('loop: keeps its round and step across pauses, and runs each step once a round', async () => {
      const ran: Ran = [];
      const holdpoint = serve(
        new LoopAgent({
          name: 'loop',
          maxIterations: 2,
          subAgents: [step('a', ran), step('b', ran, true), step('c', ran)],
        }),
      );
      const first = paused(await holdpoint.start({ userId: 'ann', query: 'go' }));
      expect(ran).toEqual(['a']);
      const second = paused(await decide(holdpoint, first, true));
      expect(ran).toEqual(['a', 'b', 'c', 'a']);
      const done = await decide(holdpoint, second, true);
      expect(done.status).toBe('completed');
      expect(ran).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    });

    it('loop: a step that escalated, then paused, ends the loop once resumed', async () => {
      const ran: Ran = [];
      const exitLoop = new FunctionTool({
        name: 'exit_loop',
        description: 'Ends the loop.',
        parameters: z.object({}),
        execute: async (_args, toolContext) => {
          ran.push('check');
          if (toolContext) toolContext.actions.escalate = true;
          return { exit: true };
        },
      });
      const checkModel = new RulesModel('check', (request) =>
        functionResponsesOf(lastContent(request))[0]
          ? textReply('done')
          : toolCall('exit_loop', {}),
      );
      const holdpoint = serve(
        new LoopAgent({
          name: 'loop',
          maxIterations: 3,
          subAgents: [
            new SequentialAgent({
              name: 'round',
              subAgents: [
                new LlmAgent({
                  name: 'check',
                  model: checkModel,
                  instruction: 'Check.',
                  tools: [exitLoop],
                }),
                step('notify', ran, true),
              ],
            }),
          ],
        }),
      );
      const pause = paused(await holdpoint.start({ userId: 'ann', query: 'go' }));
      expect((await decide(holdpoint, pause, true)).status).toBe('completed');
      expect(ran).toEqual(['check', 'notify']);
    });

    it('loop: pausing at the last step of a round goes on with the next round', async () => {
      const ran: Ran = [];
      const holdpoint = serve(
        new LoopAgent({
          name: 'loop',
          maxIterations: 2,
          subAgents: [step('a', ran), step('b', ran, true)],
        }),
      );
      const first = paused(await holdpoint.start({ userId: 'ann', query: 'go' }));
      const second = paused(await decide(holdpoint, first, false));
      expect(ran).toEqual(['a', 'a']);
      expect((await decide(holdpoint, second, true)).status).toBe('completed');
      expect(ran).toEqual(['a', 'a', 'b']);
    });

    it('nested: a loop inside a sequence resumes inside the loop, and the sequence goes on', async () => {
      const ran: Ran = [];
      const holdpoint = serve(
        new SequentialAgent({
          name: 'outer',
          subAgents: [
            step('x', ran),
            new LoopAgent({
              name: 'inner',
              maxIterations: 1,
              subAgents: [step('a', ran, true), step('b', ran)],
            }),
            step('y', ran),
          ],
        }),
      );
      const pause = paused(await holdpoint.start({ userId: 'ann', query: 'go' }));
      expect(ran).toEqual(['x']);
      expect((await decide(holdpoint, pause, true)).status).toBe('completed');
      expect(ran).toEqual(['x', 'a', 'b', 'y']);
    });

    it('nested: a sequence inside a loop starts afresh each round', async () => {
      const ran: Ran = [];
      const holdpoint = serve(
        new LoopAgent({
          name: 'rounds',
          maxIterations: 2,
          subAgents: [
            new SequentialAgent({
              name: 'round',
              subAgents: [step('a', ran), step('b', ran, true)],
            }),
          ],
        }),
      );
      const first = paused(await holdpoint.start({ userId: 'ann', query: 'go' }));
      const second = paused(await decide(holdpoint, first, true));
      expect(ran).toEqual(['a', 'b', 'a']);
      expect((await decide(holdpoint, second, true)).status).toBe('completed');
      expect(ran).toEqual(['a', 'b', 'a', 'b']);
    });

    it('parallel: gathers the branches that ask into one pause; resumes only those', async () => {
      const ran: Ran = [];
      const holdpoint = serve(
        new SequentialAgent({
          name: 'outer',
          subAgents: [
            new ParallelAgent({
              name: 'fan',
              subAgents: [step('a', ran, true), step('b', ran), step('c', ran, true)],
            }),
            step('z', ran),
          ],
        }),
      );
      const pause = paused(await holdpoint.start({ userId: 'ann', query: 'go' }));
      expect(pause.approvals.map((a) => a.toolName).sort()).toEqual(['a_tool', 'c_tool']);
      expect(ran).toEqual(['b']);
      const [first, second] = pause.approvals;
      const done = await holdpoint.resume({
        sessionId: pause.sessionId,
        decidedBy: 'ann',
        decisions: [
          { approvalId: first?.approvalId ?? '', approved: true },
          { approvalId: second?.approvalId ?? '', approved: false },
        ],
      });
      expect(done.status).toBe('completed');
      expect(ran.sort()).toEqual(['b', first?.toolName === 'a_tool' ? 'a' : 'c', 'z'].sort());
    });

    it('sequential: a long-running tool that answers "pending" at once still stops the sequence', async () => {
      const ran: Ran = [];
      const ask = new LongRunningFunctionTool({
        name: 'ask_manager',
        description: 'Asks a manager; answers that the request is pending.',
        parameters: z.object({}),
        execute: async () => ({ status: 'pending' }),
      });
      const model = new RulesModel('asker', (request) => {
        const response = functionResponsesOf(lastContent(request))[0];
        if (response?.name === 'ask_manager' && response.response?.status !== 'pending') {
          ran.push('asker');
          return textReply('the manager answered');
        }
        if (response) return textReply('waiting for the manager');
        return toolCall('ask_manager', {});
      });
      const holdpoint = serve(
        new SequentialAgent({
          name: 'seq',
          subAgents: [
            new LlmAgent({ name: 'asker', model, instruction: 'Ask.', tools: [ask] }),
            step('after', ran),
          ],
        }),
      );
      const pause = paused(await holdpoint.start({ userId: 'ann', query: 'go' }));
      expect(pause.approvals.map((a) => a.toolName)).toEqual(['ask_manager']);
      expect(ran).toEqual([]);
      const done = await holdpoint.resume({
        sessionId: pause.sessionId,
        decidedBy: 'ann',
        decisions: [
          { approvalId: pause.approvals[0]?.approvalId ?? '', approved: true, payload: { ok: 1 } },
        ],
      });
      expect(done.status).toBe('completed');
      expect(ran).toEqual(['asker', 'after']);
    });

    it('seed 004 inside a sequence: two long-running tools in a row, then the next step', async () => {
      const ran: Ran = [];
      const holdpoint = serve(
        new SequentialAgent({ name: 'seq', subAgents: [picker(ran), step('after', ran)] }),
      );
      const select = paused(await holdpoint.start({ userId: 'ann', query: 'pick' }));
      expect(select.approvals.map((a) => a.toolName)).toEqual(['select_item']);
      const answer = (pause: PendingOutcome, payload: unknown) =>
        holdpoint.resume({
          sessionId: pause.sessionId,
          decidedBy: 'ann',
          decisions: [
            { approvalId: pause.approvals[0]?.approvalId ?? '', approved: true, payload },
          ],
        });
      const confirm = paused(await answer(select, { item: 'blue' }));
      expect(confirm.approvals.map((a) => a.toolName)).toEqual(['confirm_choice']);
      expect(ran).toEqual([]);
      const done = await answer(confirm, { confirmed: true });
      expect(done.status).toBe('completed');
      expect(ran).toEqual(['picker', 'after']);
    });
  },
);
