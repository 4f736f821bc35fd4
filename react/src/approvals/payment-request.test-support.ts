import type { ApprovalRequest } from './approval-request.js';

/** Test support: the payments demo's request to send 200 USD to Jiro, open until `expiresAt`. */
export function paymentRequest(expiresAt: string): ApprovalRequest {
  return {
    approvalId: 'adk-1',
    kind: 'confirmation',
    toolName: 'process_payment',
    toolCallId: 'call-1',
    args: { amount: 200, currency: 'USD', recipient: 'Jiro' },
    hint: 'Send 200 USD to Jiro?',
    expiresAt,
  };
}
