import type { LlmRequest } from '@google/adk';
import type { Content, FunctionCall } from '@google/genai';
import {
  functionCallsOf,
  functionResponsesOf,
  lastContent,
  lastUserText,
  textReply,
} from '../shared/llm-history.js';
import { formatMoney } from './format-money.js';
import { parsePaymentRequests } from './parse-payment-request.js';

/** The payment tool's name, shared by the tool and its rules. */
export const PAYMENT_TOOL = 'process_payment';

const HELP =
  'I send payments once a person approves them. Try "Send $200 to Jiro", ' +
  '"send 50 EUR to Ana" or "次郎さんに200ドル送金してください".';

/** The latest turn's payment calls, which rejections do not echo back. */
function lastPaymentCalls(request: LlmRequest): FunctionCall[] {
  for (let index = request.contents.length - 1; index >= 0; index--) {
    const calls = functionCallsOf(request.contents[index]).filter((c) => c.name === PAYMENT_TOOL);
    if (calls.length > 0) return calls;
  }
  return [];
}

/**
 * One sentence on how one payment went: what the tool's result says ran (an approver may
 * have edited the amount), or why it did not.
 */
function describeResult(response: Record<string, unknown>, call: FunctionCall | undefined): string {
  if (response.status === 'completed') {
    const money = formatMoney(Number(response.amount), String(response.currency));
    return `Sent ${money} to ${response.recipient} (transaction ${response.transaction_id}).`;
  }
  const error = String(response.error ?? 'it failed');
  // A rejection carries the person's reason when they gave one: the user hears it.
  const given = typeof response.reason === 'string' ? response.reason.trim() : '';
  const reason = given || (/reject/i.test(error) ? 'it was rejected' : error);
  const recipient = String(call?.args?.recipient ?? 'the recipient');
  return `The payment to ${recipient} was not sent: ${reason}.`;
}

/** The payments rules: a request becomes payment calls, their results become a reply. */
export function respondPayments(request: LlmRequest): Content {
  const results = functionResponsesOf(lastContent(request)).filter((r) => r.name === PAYMENT_TOOL);
  if (results.length > 0) {
    const calls = lastPaymentCalls(request);
    return textReply(results.map((r, i) => describeResult(r.response ?? {}, calls[i])).join(' '));
  }
  const payments = parsePaymentRequests(lastUserText(request) ?? '');
  if (payments.length === 0) return textReply(HELP);
  return {
    role: 'model',
    parts: payments.map((payment) => ({
      functionCall: { name: PAYMENT_TOOL, args: { ...payment } },
    })),
  };
}
