import { ApiError } from '../client/api-error.js';
import type { DecisionBody, GrantBody } from '../client/api-types.js';
import type { ApprovalRequest } from './approval-request.js';
import { type InputChoice, inputAnswer, rejectIsAnswer } from './input-answer.js';

/**
 * What an approval may carry beyond yes: the call's arguments changed (`editedArgs`), an
 * answer in the tool's place (`response`), a grant for later calls of the tool.
 */
export interface RichApproval {
  editedArgs?: Record<string, unknown>;
  response?: unknown;
  grant?: GrantBody;
}

/** Whether an approval carries anything beyond yes (then the chat sends it by REST, see chat-session). */
export function isRich(rich: RichApproval | undefined): rich is RichApproval {
  return (
    rich !== undefined &&
    (rich.editedArgs !== undefined || rich.response !== undefined || rich.grant !== undefined)
  );
}

/**
 * The REST body of a person's answer (`POST /api/approvals/:id`). An input is answered with
 * its value; a confirmation's approval names the arguments' hash the person saw
 * (`args_hash`, when the server gave it), so it is refused (ARGS_MISMATCH) if someone's
 * edit changed them meanwhile, and carries its edit, response or grant. A rejection names
 * no hash: refusing is safe whatever the arguments became.
 */
export function decisionBody(
  request: ApprovalRequest,
  approved: boolean,
  options: { choice?: InputChoice; reason?: string; rich?: RichApproval } = {},
): DecisionBody {
  const { choice, reason, rich } = options;
  if (request.kind === 'input') {
    return approved || rejectIsAnswer(request)
      ? { approved: true, payload: inputAnswer(request, approved, choice), reason }
      : { approved: false, reason };
  }
  if (!approved) return { approved: false, reason };
  return {
    approved: true,
    reason,
    ...(request.argsHash === undefined ? {} : { args_hash: request.argsHash }),
    ...(rich?.editedArgs === undefined ? {} : { edited_args: rich.editedArgs }),
    ...(rich?.response === undefined ? {} : { response: rich.response }),
    ...(rich?.grant === undefined ? {} : { grant: rich.grant }),
  };
}

/** A server error that names the field it is about (`details.field`: a dotted path). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * The field a VALIDATION_FAILED, EDIT_NOT_ALLOWED (or other) error names in its details
 * (`amount`, `response.answer`, `grant.match.x`), with the server's message; none when it
 * names no field.
 */
export function fieldErrorOf(
  error: { message: string; details: Record<string, unknown> } | undefined,
): FieldError | undefined {
  const named = error?.details.field;
  const field = Array.isArray(named) ? named.map(String).join('.') : named;
  if (typeof field !== 'string' || field === '' || !error) return undefined;
  return { field, message: error.message };
}

const segments = (path: string) => path.split(/[.[\]]+/).filter(Boolean);

/**
 * The top-level argument an edit's error is about (`amount` of `amount`,
 * `edited_args.amount` or `items.0.name` → `items`); none for an error about the
 * response or the grant.
 */
export function editedField(error: FieldError | undefined): string | undefined {
  if (!error) return undefined;
  const [first, second] = segments(error.field);
  if (first === 'response' || first === 'grant') return undefined;
  return first === 'edited_args' || first === 'editedArgs' ? second : first;
}

/**
 * The field of a response an error is about (`answer` of `response.answer`), `''` for
 * the response as a whole; none for an error about anything else.
 */
export function responseField(error: FieldError | undefined): string | undefined {
  if (!error) return undefined;
  const [first, second] = segments(error.field);
  return first === 'response' ? (second ?? '') : undefined;
}

/** `…'s field "currency" may not be edited` (EDIT_NOT_ALLOWED). */
const LOCKED_FIELD = /field "([^"]+)"/;
/** `… are invalid: amount: Too small…` (VALIDATION_FAILED of an edit or a response). */
const INVALID_FIELD = /invalid: ([\w.[\]-]+): /;

/**
 * A refusal that came as a stream's error text (`CODE: message`, no details), with the
 * field its message names as `details.field` would (a response's under `response.`), so
 * the dialog shows it beside that field; as it was when the message names none.
 */
export function withStreamField(error: ApiError, rich: RichApproval): ApiError {
  if (typeof error.details.field === 'string') return error;
  const named = (LOCKED_FIELD.exec(error.message) ?? INVALID_FIELD.exec(error.message))?.[1];
  if (named === undefined) return error;
  const field = rich.response !== undefined && named !== 'response' ? `response.${named}` : named;
  return new ApiError(error.code, error.message, error.status, { ...error.details, field });
}

/**
 * What to tell the person whose edit (or other rich approval) was recorded while the pause
 * still `waits` on the same approval, as the server says (an edit that needs another
 * approver, or a quorum not yet met). None otherwise.
 */
export function stillWaitsNote(waits: boolean, rich: RichApproval | undefined): string | undefined {
  if (!waits || !isRich(rich)) return undefined;
  return rich.editedArgs
    ? 'Your change is recorded. It needs another approver before the call runs.'
    : 'Your approval is recorded. The call waits for another approver.';
}
