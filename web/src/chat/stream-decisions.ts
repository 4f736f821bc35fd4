import type { ApprovalRequest, ChatDecision, ChatMessage, RichApproval } from 'holdpoint/react';
import { toolPartsOf } from './find-pending';

/**
 * What a confirmation's approval carries beyond the AI SDK's `{id, approved, reason}`,
 * as the chat body's `decisions` names it: the arguments' hash the person saw, and their
 * edit, response or grant. None when there is nothing to add.
 */
export function chatDecision(
  request: ApprovalRequest,
  rich: RichApproval | undefined,
): ChatDecision | undefined {
  const detail: ChatDecision = {
    ...(request.argsHash === undefined ? {} : { argsHash: request.argsHash }),
    ...(rich?.editedArgs === undefined ? {} : { editedArgs: rich.editedArgs }),
    ...(rich?.response === undefined ? {} : { response: rich.response }),
    ...(rich?.grant === undefined ? {} : { grant: rich.grant }),
  };
  return Object.keys(detail).length > 0 ? detail : undefined;
}

/**
 * The details to send with `messages` (the body's `decisions`): those of the approvals
 * their last message answers with an approval response. Kept by approval id until then,
 * so a retried request carries them again, and never named for an approval the message
 * does not answer (the server refuses such details).
 */
export function streamDecisions(
  messages: ChatMessage[],
  details: ReadonlyMap<string, ChatDecision>,
): Record<string, ChatDecision> | undefined {
  const last = messages.at(-1);
  if (!last || details.size === 0) return undefined;
  const answered: Record<string, ChatDecision> = {};
  for (const part of toolPartsOf(last)) {
    const id = part.approval?.id;
    const detail = id === undefined ? undefined : details.get(id);
    if (part.state === 'approval-responded' && id !== undefined && detail) answered[id] = detail;
  }
  return Object.keys(answered).length > 0 ? answered : undefined;
}
