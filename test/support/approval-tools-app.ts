import { FunctionTool, LlmAgent, LongRunningFunctionTool } from '@google/adk';
import type { Content } from '@google/genai';
import { defineApp, idempotencyKey, once, RulesModel } from 'holdpoint';
import { z } from 'zod';
import {
  functionResponsesOf,
  lastContent,
  lastUserText,
  textReply,
  toolCall,
} from '../../examples/shared/llm-history.js';

/** How many times each tool's effect ran, by idempotency key. */
export const effectRuns = new Map<string, number>();

function effect(name: string, key: string, output: Record<string, unknown>) {
  effectRuns.set(key, (effectRuns.get(key) ?? 0) + 1);
  return { status: 'done', tool: name, key, ...output };
}

const amount = z.object({ amount: z.number() });

/** `requireConfirmation: true`: every call waits. */
const always = new FunctionTool({
  name: 'always_confirm',
  description: 'Moves an amount; always needs approval.',
  parameters: amount,
  requireConfirmation: true,
  execute: ({ amount }, toolContext) =>
    once(toolContext, () => effect('always_confirm', idempotencyKey(toolContext), { amount })),
});

/** `requireConfirmation` as a predicate over the arguments: above 100 waits. */
const above100 = new FunctionTool({
  name: 'confirm_above_100',
  description: 'Moves an amount; above 100 needs approval.',
  parameters: amount,
  requireConfirmation: ({ amount }) => amount > 100,
  execute: ({ amount }, toolContext) =>
    once(toolContext, () => effect('confirm_above_100', idempotencyKey(toolContext), { amount })),
});

/** `toolContext.requestConfirmation({ hint, payload })` from inside the tool (seed 000). */
const asks = new FunctionTool({
  name: 'asks_itself',
  description: 'Moves an amount; asks a person itself with a hint and a payload to fill.',
  parameters: amount,
  execute: async ({ amount }, toolContext) => {
    const confirmation = toolContext?.toolConfirmation;
    if (!confirmation) {
      toolContext?.requestConfirmation({
        hint: `Move ${amount} credits? Add a note.`,
        payload: { note: '' },
      });
      return { status: 'pending' };
    }
    if (!confirmation.confirmed) return { error: 'A person rejected the move.' };
    const note = (confirmation.payload as { note?: string } | undefined)?.note;
    return once(toolContext, () =>
      effect('asks_itself', idempotencyKey(toolContext), { amount, note }),
    );
  },
});

/** A long-running tool: returns nothing, and the person's value becomes its result. */
const askValue = new LongRunningFunctionTool({
  name: 'ask_value',
  description: 'Asks a person for a value.',
  parameters: z.object({ question: z.string() }),
  execute: async () => undefined,
});

const COMMANDS: Record<string, (n: number) => Content> = {
  always: (n) => toolCall('always_confirm', { amount: n }),
  predicate: (n) => toolCall('confirm_above_100', { amount: n }),
  asks: (n) => toolCall('asks_itself', { amount: n }),
  value: () => toolCall('ask_value', { question: 'Which colour?' }),
  both: (n) => ({
    role: 'model',
    parts: [
      { functionCall: { name: 'always_confirm', args: { amount: n } } },
      { functionCall: { name: 'ask_value', args: { question: 'Which colour?' } } },
    ],
  }),
};

/**
 * "always 5", "predicate 500", "asks 7", "value": calls that tool; "both 5" calls
 * always_confirm and ask_value in one turn. Tool results are echoed, one per line.
 */
const model = new RulesModel('approval-tools', (request) => {
  const responses = functionResponsesOf(lastContent(request));
  if (responses.length > 0) {
    return textReply(responses.map((r) => `${r.name}: ${JSON.stringify(r.response)}`).join('\n'));
  }
  const [command = '', number = '0'] = (lastUserText(request) ?? '').split(' ');
  return COMMANDS[command]?.(Number(number)) ?? textReply('Say always, predicate, asks or value.');
});

/** Every way ADK lets a tool wait for a person, in one app defined through the public API. */
export default defineApp({
  name: 'approval-tools',
  description: 'One tool per ADK approval mechanism.',
  agent: new LlmAgent({
    name: 'approval_tools',
    model,
    instruction: 'Call the tool the user names.',
    tools: [always, above100, asks, askValue],
  }),
  approvals: {
    confirm_above_100: { hint: (args) => `Move ${String(args.amount)} (above 100)?` },
  },
});
