import type { LlmRequest } from '@google/adk';
import type { Content } from '@google/genai';
import {
  functionCallsOf,
  functionResponsesOf,
  lastContent,
  lastUserText,
  textReply,
  toolCall,
} from '../llm-history.js';
import { formatMoney } from './format-money.js';
import { parsePaymentRequest } from './parse-payment-request.js';

/** The payment tool's name, shared by the tool and its rules. */
export const PAYMENT_TOOL = 'process_payment';

const HELP =
  'I send payments once a person approves them. Try "Send $200 to Jiro", ' +
  '"send 50 EUR to Ana" or "次郎さんに200ドル送金してください".';

/** The recipient of the latest payment call, which a rejection does not echo back. */
function lastRecipient(request: LlmRequest): string {
  for (let index = request.contents.length - 1; index >= 0; index--) {
    const call = functionCallsOf(request.contents[index]).find((c) => c.name === PAYMENT_TOOL);
    if (call) return String(call.args?.recipient ?? 'the recipient');
  }
  return 'the recipient';
}

/** The payments rules: a request becomes a payment call, its result becomes a reply. */
export function respondPayments(request: LlmRequest): Content {
  const result = functionResponsesOf(lastContent(request)).find((r) => r.name === PAYMENT_TOOL);
  if (result) {
    const response = result.response ?? {};
    if (response.status === 'completed') {
      const money = formatMoney(Number(response.amount), String(response.currency));
      return textReply(
        `Sent ${money} to ${response.recipient} (transaction ${response.transaction_id}).`,
      );
    }
    const error = String(response.error ?? 'it failed');
    const reason = /reject/i.test(error) ? 'it was rejected' : error;
    return textReply(`The payment to ${lastRecipient(request)} was not sent: ${reason}.`);
  }
  const payment = parsePaymentRequest(lastUserText(request) ?? '');
  if (!payment) return textReply(HELP);
  return toolCall(PAYMENT_TOOL, { ...payment });
}
