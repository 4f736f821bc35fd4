import { FunctionTool, LlmAgent } from '@google/adk';
import { defineApp, idempotencyKey, once } from 'holdpoint';
import { z } from 'zod';
import { selectModel } from '../shared/select-model.js';
import { formatMoney } from './format-money.js';
import { PAYMENT_TOOL, respondPayments } from './payments-rules.js';

const INSTRUCTION = `You are a payments assistant.
When the user asks to send or pay money, call ${PAYMENT_TOOL} with the amount (a positive
number), the recipient's name as written, and the ISO 4217 currency code (USD when none is
given; "$" or ドル is USD, 円 is JPY, ユーロ is EUR). Every payment is sent to a human for
approval automatically, so do not ask for confirmation yourself.
When the tool returns status "completed", confirm the amount, currency, recipient and
transaction id (the approver may have changed the amount or recipient: report the result's).
When it returns an error such as a rejection, say the payment was not sent and why (its
reason, when it gives one). Reply in the user's language.`;

/** Derived from the call's idempotency key, as a payment provider would, so a replay reports the same transaction. */
function transactionId(key: string): string {
  return `TXN-${key.slice(3, 13).toUpperCase()}`;
}

/** Seed 001: every payment waits for a human's approval and is sent once. */
function paymentsAgent(model: string): LlmAgent {
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
    execute: async (args, toolContext) => {
      const key = idempotencyKey(toolContext);
      return once(toolContext, async () => ({
        status: 'completed',
        transaction_id: transactionId(key),
        amount: args.amount,
        currency: args.currency.toUpperCase(),
        recipient: args.recipient,
      }));
    },
  });
  return new LlmAgent({
    name: 'payments',
    description: 'Sends payments after a human approves each one.',
    model: selectModel(model, 'payments', respondPayments),
    instruction: INSTRUCTION,
    tools: [tool],
  });
}

/** What a person sees when a payment waits for them. */
export function paymentHint(args: Record<string, unknown>): string {
  const currency = String(args.currency ?? 'USD').toUpperCase();
  return `Send ${formatMoney(Number(args.amount), currency)} to ${String(args.recipient)}?`;
}

export default defineApp({
  name: 'payments',
  label: 'Payments',
  description:
    'Sends money. Every payment waits for someone with the approver role, never the one who asked.',
  examples: ['Send $200 to Jiro', 'Send 50 EUR to Ana and $20 to Bob'],
  agent: ({ model }) => paymentsAgent(model),
  approvals: {
    [PAYMENT_TOOL]: {
      hint: paymentHint,
      // Money fails closed: a payment nobody approves in time is denied, not left waiting.
      onTimeout: 'deny',
      // Four eyes: someone with the approver role signs off, never the person who asked.
      approvers: { roles: ['approver'], requesterMayApprove: false },
      // An approver may correct the payment before approving it; raising the amount
      // needs a second approver, and so does changing the currency (5000 JPY → 5000 USD
      // raises the payment without raising the number).
      editable: ['amount', 'recipient', 'currency'],
      editNeedsApproval: (seen, edited) =>
        Number(edited.amount) > Number(seen.amount) || edited.currency !== seen.currency,
    },
  },
});
