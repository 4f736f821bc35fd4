import {
  LoopAgent as AdkLoopAgent,
  ParallelAgent as AdkParallelAgent,
  SequentialAgent as AdkSequentialAgent,
  AgentTool,
  FunctionTool,
  LlmAgent,
  LongRunningFunctionTool,
} from '@google/adk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RulesModel } from './rules-model.js';
import { silentSkips } from './silent-skips.js';
import { SequentialAgent } from './workflows/sequential-agent.js';

const model = new RulesModel('x', () => ({ role: 'model', parts: [{ text: 'x' }] }));
const plain = (name: string) =>
  new FunctionTool({ name, description: name, parameters: z.object({}), execute: () => ({}) });
const confirmed = (name: string) =>
  new FunctionTool({
    name,
    description: name,
    parameters: z.object({ n: z.number() }),
    requireConfirmation: ({ n }) => n > 1,
    execute: () => ({}),
  });
const longRunning = (name: string) =>
  new LongRunningFunctionTool({
    name,
    description: name,
    parameters: z.object({}),
    execute: async () => undefined,
  });
const llm = (name: string, tools: ConstructorParameters<typeof LlmAgent>[0]['tools'] = []) =>
  new LlmAgent({ name, model, tools });

describe('silentSkips', () => {
  it("finds nothing where every run pauses: the root, sub-agents, AgentTools, Holdpoint's workflows", () => {
    const root = llm('root', [new AgentTool({ agent: llm('inner', [confirmed('pay')]) })]);
    root.subAgents.push(
      new SequentialAgent({ name: 'flow', subAgents: [llm('step', [longRunning('pick')])] }),
    );
    expect(silentSkips(root, new Set(['pay']))).toEqual([]);
    // ADK's own workflows are fine where nothing in them waits for a person.
    expect(
      silentSkips(
        new AdkSequentialAgent({ name: 'p', subAgents: [llm('s', [plain('f')])] }),
        new Set(),
      ),
    ).toEqual([]);
  });

  it("names each tool that waits for a person inside ADK's own workflow agents, and why", () => {
    const skips = silentSkips(
      new AdkSequentialAgent({
        name: 'pipeline',
        subAgents: [
          llm('a', [confirmed('pay')]),
          new AdkLoopAgent({ name: 'again', subAgents: [llm('b', [longRunning('pick')])] }),
          new AdkParallelAgent({ name: 'fan', subAgents: [llm('c', [plain('notify')])] }),
        ],
      }),
      new Set(['notify']),
    );
    expect(skips).toEqual([
      `the tool pay waits for a person (requireConfirmation) but runs inside ADK's SequentialAgent "pipeline", which runs its next step before anyone decides: use the one from 'holdpoint/workflows'`,
      `the tool pick waits for a person (a long-running tool) but runs inside ADK's SequentialAgent "pipeline", which runs its next step before anyone decides: use the one from 'holdpoint/workflows'`,
      `the tool notify waits for a person (named in the app's approvals) but runs inside ADK's SequentialAgent "pipeline", which runs its next step before anyone decides: use the one from 'holdpoint/workflows'`,
    ]);
  });

  it('looks through AgentTools both ways: a workflow behind one, one inside a workflow', () => {
    const behind = llm('root', [
      new AgentTool({
        agent: new AdkParallelAgent({ name: 'fan', subAgents: [llm('b', [confirmed('pay')])] }),
      }),
    ]);
    expect(silentSkips(behind, new Set())).toEqual([
      expect.stringContaining(
        `the tool pay waits for a person (requireConfirmation) but runs inside ADK's ParallelAgent "fan"`,
      ),
    ]);
    const inside = new AdkLoopAgent({
      name: 'again',
      subAgents: [llm('a', [new AgentTool({ agent: llm('inner', [longRunning('pick')]) })])],
    });
    expect(silentSkips(inside, new Set())).toEqual([
      expect.stringContaining(
        `the tool pick waits for a person (a long-running tool) but runs inside ADK's LoopAgent "again"`,
      ),
    ]);
  });
});
