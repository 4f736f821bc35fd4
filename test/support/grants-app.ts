import { FunctionTool, LlmAgent } from '@google/adk';
import { defineApp, RulesModel } from 'holdpoint';
import { z } from 'zod';
import {
  functionResponsesOf,
  lastContent,
  lastUserText,
  textReply,
  toolCall,
} from '../../examples/shared/llm-history.js';

const transfer = z.object({ amount: z.number(), to: z.string() });

/** Every call that ran, as `<tool> <amount> <to>`, in order. */
export const sent: string[] = [];

/** A `requireConfirmation` tool that sends `amount` to `to`. */
function sending(name: string): FunctionTool<typeof transfer> {
  return new FunctionTool({
    name,
    description: `Sends an amount (${name}); needs approval.`,
    parameters: transfer,
    requireConfirmation: true,
    execute: async ({ amount, to }) => {
      sent.push(`${name} ${amount} ${to}`);
      return { status: 'sent', tool: name, amount, to };
    },
  });
}

/**
 * "tip 5 jiro", "refund 5 jiro" or "note 5 jiro" calls that tool with `{amount, to}`;
 * its result is echoed as `<tool>: <json>`.
 */
const model = new RulesModel('grants', (request) => {
  const responses = functionResponsesOf(lastContent(request));
  if (responses.length > 0) {
    return textReply(responses.map((r) => `${r.name}: ${JSON.stringify(r.response)}`).join('\n'));
  }
  const [tool = '', amount = '0', to = 'jiro'] = (lastUserText(request) ?? '').split(' ');
  if (!['tip', 'refund', 'note'].includes(tool)) return textReply('Say tip, refund or note.');
  return toolCall(tool, { amount: Number(amount), to });
});

/**
 * Test support: tools whose deciders may grant later calls: `tip` (for the session or
 * the user, at most 4 hours), `note` (the session only, at most 1 hour); `refund`
 * allows no grants.
 */
export default defineApp({
  name: 'grants',
  description: 'Tools a decider may allow for a while.',
  agent: new LlmAgent({
    name: 'grants',
    model,
    instruction: 'Call the tool the user names.',
    tools: [sending('tip'), sending('refund'), sending('note')],
  }),
  approvals: {
    tip: { grants: { maxHours: 4 } },
    note: { grants: { scopes: ['session'], maxHours: 1 } },
  },
});
