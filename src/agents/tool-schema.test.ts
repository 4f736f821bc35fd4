import { FunctionTool, LlmAgent } from '@google/adk';
import { Type } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argsIssue, argsJsonSchema, findTool } from './tool-schema.js';

const zodTool = new FunctionTool({
  name: 'pay',
  description: 'Pays.',
  parameters: z.object({ amount: z.number().positive(), currency: z.string().default('USD') }),
  execute: async () => ({}),
});
const genaiTool = new FunctionTool({
  name: 'tag',
  description: 'Tags.',
  parameters: {
    type: Type.OBJECT,
    properties: { label: { type: Type.STRING }, weight: { type: Type.NUMBER } },
    required: ['label'],
  },
  execute: async () => ({}),
});
const root = new LlmAgent({
  name: 'root',
  instruction: '',
  subAgents: [new LlmAgent({ name: 'inner', instruction: '', tools: [zodTool, genaiTool] })],
});

describe('tool schemas', () => {
  it('finds a tool anywhere in the agent tree', () => {
    expect(findTool(root, 'tag')).toBe(genaiTool);
    expect(findTool(root, 'nope')).toBeUndefined();
  });

  it('gives the arguments as JSON Schema: zod as input (defaults optional), genai lower-cased', () => {
    expect(argsJsonSchema(zodTool)).toMatchObject({
      type: 'object',
      properties: { amount: { type: 'number' } },
      required: ['amount'],
    });
    expect(argsJsonSchema(genaiTool)).toMatchObject({
      type: 'object',
      properties: { label: { type: 'string' } },
    });
  });

  it('names the first field that fails the tool schema', () => {
    expect(argsIssue(zodTool, { amount: -1 })).toMatchObject({ field: 'amount' });
    expect(argsIssue(zodTool, { amount: 3 })).toBeUndefined();
    expect(argsIssue(genaiTool, { label: 5 })).toMatchObject({ field: 'label' });
    expect(argsIssue(genaiTool, { label: 'x', weight: 2 })).toBeUndefined();
    expect(argsIssue(undefined, { anything: true })).toBeUndefined();
  });
});
