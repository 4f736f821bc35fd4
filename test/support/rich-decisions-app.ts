import { FunctionTool, LlmAgent, LongRunningFunctionTool } from '@google/adk';
import type { Content } from '@google/genai';
import { defineApp, RulesModel } from 'holdpoint';
import { z } from 'zod';
import {
  functionResponsesOf,
  lastContent,
  lastUserText,
  textReply,
  toolCall,
} from '../../examples/shared/llm-history.js';

/** A payment: its amount and recipient may be edited (a raised amount needs a second approver). */
const pay = new FunctionTool({
  name: 'pay',
  description: 'Pays an amount to a recipient.',
  parameters: z.object({
    amount: z.number().positive(),
    recipient: z.string().min(1),
    currency: z.string().length(3),
  }),
  requireConfirmation: true,
  execute: ({ amount, recipient, currency }) => ({ status: 'sent', amount, recipient, currency }),
});

/** A lookup a person may answer in its place (`{answer}`), so it does not run. */
const lookup = new FunctionTool({
  name: 'lookup',
  description: 'Looks something up.',
  parameters: z.object({ query: z.string() }),
  requireConfirmation: true,
  execute: ({ query }) => ({ found: `the tool looked up ${query}` }),
});

/** A long-running tool: the person's value becomes its result (an input approval). */
const askValue = new LongRunningFunctionTool({
  name: 'ask_value',
  description: 'Asks a person for a value.',
  parameters: z.object({ question: z.string() }),
  execute: async () => undefined,
});

const COMMANDS: Record<string, (words: string[]) => Content> = {
  pay: ([amount = '0', recipient = 'Jiro']) =>
    toolCall('pay', { amount: Number(amount), recipient, currency: 'USD' }),
  lookup: ([query = 'weather']) => toolCall('lookup', { query }),
  value: () => toolCall('ask_value', { question: 'Which colour?' }),
  both: ([amount = '0']) => ({
    role: 'model',
    parts: [
      {
        functionCall: {
          name: 'pay',
          args: { amount: Number(amount), recipient: 'Jiro', currency: 'USD' },
        },
      },
      { functionCall: { name: 'lookup', args: { query: 'rates' } } },
    ],
  }),
};

/**
 * "pay 200 Jiro", "lookup weather", "value", "both 200" (pay and lookup in one turn).
 * Every tool result is said back as it came, one per line: what ran, what a person
 * answered instead, and a rejection's reason.
 */
const model = new RulesModel('rich-decisions', (request) => {
  const responses = functionResponsesOf(lastContent(request));
  if (responses.length > 0) {
    return textReply(responses.map((r) => `${r.name}: ${JSON.stringify(r.response)}`).join('\n'));
  }
  const [command = '', ...words] = (lastUserText(request) ?? '').split(' ');
  return COMMANDS[command]?.(words) ?? textReply('Say pay, lookup, value or both.');
});

/** Tools whose deciders may edit, answer in their place or reject with a reason. */
export default defineApp({
  name: 'rich-decisions',
  description: 'Edit, respond and reject with a reason.',
  agent: new LlmAgent({
    name: 'rich_decisions',
    model,
    instruction: 'Call the tool the user names.',
    tools: [pay, lookup, askValue],
  }),
  approvals: {
    pay: {
      hint: (args) => `Pay ${args.amount} ${args.currency} to ${args.recipient}?`,
      editable: ['amount', 'recipient'],
      editNeedsApproval: (seen, edited) => Number(edited.amount) > Number(seen.amount),
    },
    lookup: { respond: { schema: z.object({ answer: z.string() }) } },
  },
});
