/**
 * Stable error codes. Clients match on these; never rename one. The HTTP layer answers
 * each with its status (`errorStatus`, src/transports/http/error-status.ts).
 */
export const ERROR_CODES = [
  'INVALID_JSON',
  'VALIDATION_FAILED',
  'UNKNOWN_APP',
  'UNAUTHENTICATED',
  'LOGIN_FAILED',
  'FORBIDDEN',
  /** An edit of a tool (or of a field) whose policy does not let deciders change it. */
  'EDIT_NOT_ALLOWED',
  /** An answer in the place of a tool whose policy does not allow it. */
  'RESPOND_NOT_ALLOWED',
  /** A grant the tool's policy forbids, or one wider (scope, hours) than it permits. */
  'GRANT_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'ORIGIN_NOT_ALLOWED',
  'HOST_NOT_ALLOWED',
  'NOT_FOUND',
  'SESSION_NOT_FOUND',
  'APPROVAL_NOT_FOUND',
  'RUN_NOT_FOUND',
  'GRANT_NOT_FOUND',
  'NO_PENDING_APPROVAL',
  'SESSION_PAUSED',
  'SESSION_BUSY',
  'RUN_INTERRUPTED',
  'RUN_NOT_INTERRUPTED',
  'SESSION_EXISTS',
  'APP_MISMATCH',
  'ALREADY_DECIDED',
  'ALREADY_VOTED',
  'PAUSE_MISMATCH',
  'ARGS_MISMATCH',
  'PAUSE_CANCELLED',
  'APPROVAL_EXPIRED',
  'TOO_MANY_APPROVALS',
  'IDEMPOTENCY_KEY_REUSED',
  'EFFECT_IN_PROGRESS',
  'LEASE_LOST',
  'APP_CHANGED',
  'RATE_LIMITED',
  'TOO_MANY_STREAMS',
  'TOO_MANY_SOCKETS',
  'TOO_MANY_INBOX_STREAMS',
  'RUN_FAILED',
  'INVALID_APP',
  'APP_LOAD_FAILED',
  'LISTEN_FAILED',
  'INTERNAL',
  'RECORD_UNREADABLE',
  'STORE_UNAVAILABLE',
  'STORE_FULL',
  /**
   * The store is answering but this server's requests already queue for its connections
   * past the bound (PostgreSQL's `--postgres-max-waiting`): nothing was sent; `Retry-After`
   * says when to try again.
   */
  'STORE_BUSY',
  /**
   * Another process serves the SQLite data directory (`holdpoint serve` refuses to
   * start); never an HTTP answer.
   */
  'STORE_IN_USE',
  'OUTCOME_UNKNOWN',
  /** A SQL store's database is at an older schema and migrating was not allowed. */
  'SCHEMA_OUTDATED',
  /** A SQL store's database is at a newer schema than this version of Holdpoint knows. */
  'SCHEMA_TOO_NEW',
  'AUTH_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Whether `code` is one of ours (an own key: `toString` and the like are not codes). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);
}

/** A failure with a stable code; each transport maps the code onto its protocol. */
export class HoldpointError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'HoldpointError';
    this.code = code;
    this.details = details;
  }

  /**
   * @deprecated The HTTP status the API answers this error with: use
   * `errorStatus[error.code]`. Goes in 0.4; until then the HTTP layer, which owns the
   * statuses, defines it (src/transports/http/error-status.ts).
   */
  declare readonly status: number;
}

/** SESSION_NOT_FOUND for `sessionId`. */
export function sessionNotFound(sessionId: string): HoldpointError {
  return new HoldpointError('SESSION_NOT_FOUND', `No session ${sessionId}.`, {
    session_id: sessionId,
  });
}

/** APPROVAL_NOT_FOUND for `approvalId`. */
export function approvalNotFound(approvalId: string): HoldpointError {
  return new HoldpointError('APPROVAL_NOT_FOUND', `No approval ${approvalId}.`, {
    approval_id: approvalId,
  });
}

/** RUN_NOT_FOUND for `invocationId`. */
export function runNotFound(invocationId: string): HoldpointError {
  return new HoldpointError('RUN_NOT_FOUND', `No run ${invocationId}.`, {
    invocation_id: invocationId,
  });
}

/** SESSION_EXISTS for `sessionId`. */
export function sessionExists(sessionId: string): HoldpointError {
  return new HoldpointError('SESSION_EXISTS', `Session ${sessionId} already exists.`, {
    session_id: sessionId,
  });
}

/**
 * Whether `error` says the store stopped answering: STORE_UNAVAILABLE (nothing was
 * sent) or OUTCOME_UNKNOWN (a write was sent and its reply lost).
 */
export function isStoreAway(error: unknown): error is HoldpointError {
  return isHoldpointError(error, 'STORE_UNAVAILABLE') || isHoldpointError(error, 'OUTCOME_UNKNOWN');
}

/**
 * `error`, naming the run it is about when it is OUTCOME_UNKNOWN: a client that was not
 * told whether its request was stored learns where to look.
 */
export function withRun(error: unknown, invocationId: string | undefined): unknown {
  if (!isHoldpointError(error, 'OUTCOME_UNKNOWN') || invocationId === undefined) return error;
  return new HoldpointError(
    'OUTCOME_UNKNOWN',
    `${error.message} The run's state is at GET /api/runs/${invocationId}.`,
    { ...error.details, invocation_id: invocationId },
  );
}

/**
 * True when `error` is a HoldpointError, optionally with the given code. One made by
 * another copy of this package (an app module that resolved its own) counts too.
 */
export function isHoldpointError(error: unknown, code?: ErrorCode): error is HoldpointError {
  const isOne =
    error instanceof HoldpointError ||
    (error instanceof Error &&
      error.name === 'HoldpointError' &&
      isErrorCode((error as HoldpointError).code));
  return isOne && (code === undefined || (error as HoldpointError).code === code);
}
