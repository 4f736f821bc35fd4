import { AgentTool, FunctionTool, LlmAgent } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appShape, shapeChanges } from './app-shape.js';
import { RulesModel } from './rules-model.js';
import { SequentialAgent } from './workflows/sequential-agent.js';

const model = new RulesModel('x', () => ({ role: 'model', parts: [{ text: 'x' }] }));
const tool = (name: string) =>
  new FunctionTool({
    name,
    description: name,
    parameters: z.object({}),
    execute: async () => ({}),
  });
const llm = (name: string, tools: string[] = []) =>
  new LlmAgent({ name, model, instruction: name, tools: tools.map(tool) });

describe('appShape', () => {
  it('names every agent in its place and every tool, and changes when any of them does', () => {
    const v1 = appShape(
      new SequentialAgent({ name: 'flow', subAgents: [llm('a', ['pay']), llm('b')] }),
    );
    expect(v1.parts).toEqual([
      'agent flow (SequentialAgent)',
      'agent flow/0:a (LlmAgent)',
      'tool flow/0:a pay',
      'agent flow/1:b (LlmAgent)',
    ]);
    expect(v1.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    const same = appShape(
      new SequentialAgent({ name: 'flow', subAgents: [llm('a', ['pay']), llm('b')] }),
    );
    expect(same.fingerprint).toBe(v1.fingerprint);

    const reordered = appShape(
      new SequentialAgent({ name: 'flow', subAgents: [llm('b'), llm('a', ['pay'])] }),
    );
    expect(reordered.fingerprint).not.toBe(v1.fingerprint);
    const moreTools = appShape(
      new SequentialAgent({ name: 'flow', subAgents: [llm('a', ['pay', 'refund']), llm('b')] }),
    );
    expect(shapeChanges(v1.parts, moreTools.parts)).toEqual({
      added: ['tool flow/0:a refund'],
      removed: [],
    });
  });

  it('includes the agents its AgentTools run: they resume inside the run too', () => {
    const inner = llm('inner', ['move']);
    const shape = appShape(
      new LlmAgent({
        name: 'root',
        model,
        instruction: 'r',
        tools: [new AgentTool({ agent: inner })],
      }),
    );
    expect(shape.parts).toEqual([
      'agent root (LlmAgent)',
      'tool root inner',
      'agent root/tool:inner (LlmAgent)',
      'tool root/tool:inner move',
    ]);
  });
});
