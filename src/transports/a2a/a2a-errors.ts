import {
  type A2AError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { type ErrorCode, isHoldpointError } from '../../core/errors.js';

/** Holdpoint's codes that A2A names itself; the rest are what the task cannot do now. */
const A2A_ERRORS: Partial<
  Record<
    ErrorCode,
    new (options: {
      message: string;
      metadata: Record<string, string>;
    }) => A2AError
  >
> = {
  SESSION_NOT_FOUND: TaskNotFoundError,
  APPROVAL_NOT_FOUND: TaskNotFoundError,
  NOT_FOUND: TaskNotFoundError,
  APP_MISMATCH: TaskNotFoundError,
  VALIDATION_FAILED: RequestMalformedError,
  INVALID_JSON: RequestMalformedError,
  ARGS_MISMATCH: RequestMalformedError,
  EDIT_NOT_ALLOWED: RequestMalformedError,
  RESPOND_NOT_ALLOWED: RequestMalformedError,
  GRANT_NOT_ALLOWED: RequestMalformedError,
  RUN_NOT_INTERRUPTED: TaskNotCancelableError,
};

/**
 * A Holdpoint error as the A2A error a client understands, its stable code kept in the
 * error's `google.rpc.ErrorInfo` metadata (`holdpoint_code`): ALREADY_DECIDED (another
 * door decided first), FORBIDDEN (a caller the tool's policy refuses), APPROVAL_EXPIRED,
 * … are `UnsupportedOperationError` (what this task cannot do now); an unknown task is
 * `TaskNotFoundError`, a malformed answer `RequestMalformedError`. Anything else is
 * passed on as it is (the SDK answers it as an internal error).
 */
export function a2aError(error: unknown): unknown {
  if (!isHoldpointError(error)) return error;
  const Kind = A2A_ERRORS[error.code] ?? UnsupportedOperationError;
  return new Kind({
    message: `${error.code}: ${error.message}`,
    metadata: { holdpoint_code: error.code },
  });
}
