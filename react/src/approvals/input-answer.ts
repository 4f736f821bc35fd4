import type { ApprovalRequest } from './approval-request.js';

/** What a person gave an input request: one option or typed text, or several options. */
export type InputChoice = string | string[];

/**
 * The value an input request is answered with: the picked `{items}` of a request that
 * takes several, the chosen or typed `{item}` of one with options or free text, and
 * `{confirmed}` for a yes/no one (confirm_choice).
 */
export function inputAnswer(request: ApprovalRequest, approved: boolean, choice?: InputChoice) {
  if (request.multiple) return { items: Array.isArray(choice) ? choice : [] };
  if (request.options || request.freeText) {
    return { item: Array.isArray(choice) ? choice[0] : choice };
  }
  return { confirmed: approved };
}

/** Whether rejecting an input request is itself an answer (a "no"), not a refusal to answer. */
export function rejectIsAnswer(request: ApprovalRequest): boolean {
  return request.kind === 'input' && !request.options && !request.freeText;
}
