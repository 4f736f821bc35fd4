import type { ApprovalRequest } from './approval-request';

/**
 * The value an input request is answered with. A request with options is answered with the
 * chosen `{item}`; one without (confirm_choice) is a yes/no answered with `{confirmed}`.
 */
export function inputAnswer(request: ApprovalRequest, approved: boolean, choice?: string) {
  if (request.options) return { item: choice };
  return { confirmed: approved };
}

/** Whether rejecting an input request is itself an answer (a "no"), not a refusal to answer. */
export function rejectIsAnswer(request: ApprovalRequest): boolean {
  return request.kind === 'input' && !request.options;
}
