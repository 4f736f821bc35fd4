import { createHash } from 'node:crypto';
import { FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import type { AgentApp, AgentAppOptions } from '../agent-app.js';
import { effectKey } from '../effect-key.js';
import { selectModel } from '../select-model.js';
import { formatMoney } from './format-money.js';
import { PAYMENT_TOOL, respondPayments } from './payments-rules.js';

const INSTRUCTION = `You are a payments assistant.
When the user asks to send or pay money, call ${PAYMENT_TOOL} with the amount (a positive
number), the recipient's name as written, and the ISO 4217 currency code (USD when none is
given; "$" or ドル is USD, 円 is JPY, ユーロ is EUR). Every payment is sent to a human for
approval automatically, so do not ask for confirmation yourself.
When the tool returns status "completed", confirm the amount, currency, recipient and
transaction id. When it returns an error such as a rejection, say the payment was not sent
and why. Reply in the user's language.`;

/** Derived from the call, so a replayed effect reports the same transaction. */
function transactionId(callKey: string): string {
  return `TXN-${createHash('sha256').update(callKey).digest('hex').slice(0, 10).toUpperCase()}`;
}

/** Seed 001: every payment waits for a human's approval and is sent once. */
export function createPaymentsApp(options: AgentAppOptions): AgentApp {
  const tool = new FunctionTool({
    name: PAYMENT_TOOL,
    description: 'Sends a payment of amount in currency to recipient.',
    parameters: z.object({
      amount: z.number().positive().describe('The amount to send'),
      recipient: z.string().min(1).describe('Who receives the money'),
      currency: z
        .string()
        .regex(/^[A-Za-z]{3}$/)
        .default('USD')
        .describe('ISO 4217 currency code, e.g. USD, EUR, JPY'),
    }),
    requireConfirmation: true,
    execute: async (args, ctx) => {
      const key = effectKey(ctx);
      return options.effects.once(key, async () => ({
        status: 'completed',
        transaction_id: transactionId(key),
        amount: args.amount,
        currency: args.currency.toUpperCase(),
        recipient: args.recipient,
      }));
    },
  });
  const rootAgent = new LlmAgent({
    name: 'payments',
    description: 'Sends payments after a human approves each one.',
    model: selectModel(options.model, 'payments', respondPayments),
    instruction: INSTRUCTION,
    tools: [tool],
  });
  return {
    name: 'payments',
    description: 'Send money; every payment waits for approval (seed 001).',
    rootAgent,
    // Money fails closed: a payment nobody approves in time is denied, not left waiting.
    approvalPolicies: { [PAYMENT_TOOL]: { onTimeout: 'deny' } },
    hints: {
      [PAYMENT_TOOL]: (args) => {
        const currency = String(args.currency ?? 'USD').toUpperCase();
        return `Send ${formatMoney(Number(args.amount), currency)} to ${String(args.recipient)}?`;
      },
    },
  };
}
