import { AgentTool, LlmAgent } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { agentsOf, toolAgentsOf } from './agent-tree.js';
import { RulesModel } from './rules-model.js';
import { SequentialAgent } from './workflows/sequential-agent.js';

const model = new RulesModel('x', () => ({ role: 'model', parts: [{ text: 'x' }] }));

describe('agentsOf', () => {
  it("lists every agent an app runs once, root first: sub-agents and AgentTools' agents at any depth", () => {
    const deepest = new LlmAgent({ name: 'deepest', model });
    const helper = new LlmAgent({
      name: 'helper',
      model,
      tools: [new AgentTool({ agent: deepest })],
    });
    const step = new LlmAgent({ name: 'step', model, tools: [new AgentTool({ agent: helper })] });
    // The same agent as a tool twice is one agent.
    const root = new SequentialAgent({ name: 'flow', subAgents: [step] });
    const other = new LlmAgent({ name: 'other', model, tools: [new AgentTool({ agent: helper })] });
    root.subAgents.push(other);
    expect(agentsOf(root).map((a) => a.name)).toEqual([
      'flow',
      'step',
      'helper',
      'deepest',
      'other',
    ]);
    expect(toolAgentsOf(step)).toEqual([helper]);
    expect(toolAgentsOf(root)).toEqual([]);
  });
});
