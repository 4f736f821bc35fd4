/** Stable error codes. Clients match on these; never rename one. */
export const errorStatus = {
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  UNKNOWN_APP: 400,
  UNAUTHENTICATED: 401,
  LOGIN_FAILED: 400,
  FORBIDDEN: 403,
  /** An edit of a tool (or of a field) whose policy does not let deciders change it. */
  EDIT_NOT_ALLOWED: 403,
  /** An answer in the place of a tool whose policy does not allow it. */
  RESPOND_NOT_ALLOWED: 403,
  /** A grant the tool's policy forbids, or one wider (scope, hours) than it permits. */
  GRANT_NOT_ALLOWED: 403,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  ORIGIN_NOT_ALLOWED: 403,
  HOST_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  APPROVAL_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  GRANT_NOT_FOUND: 404,
  NO_PENDING_APPROVAL: 409,
  SESSION_PAUSED: 409,
  SESSION_BUSY: 409,
  RUN_INTERRUPTED: 409,
  RUN_NOT_INTERRUPTED: 409,
  SESSION_EXISTS: 409,
  APP_MISMATCH: 409,
  ALREADY_DECIDED: 409,
  ALREADY_VOTED: 409,
  PAUSE_MISMATCH: 409,
  ARGS_MISMATCH: 409,
  PAUSE_CANCELLED: 409,
  APPROVAL_EXPIRED: 410,
  TOO_MANY_APPROVALS: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  EFFECT_IN_PROGRESS: 409,
  LEASE_LOST: 409,
  APP_CHANGED: 409,
  RATE_LIMITED: 429,
  TOO_MANY_STREAMS: 429,
  TOO_MANY_SOCKETS: 429,
  TOO_MANY_INBOX_STREAMS: 429,
  RUN_FAILED: 500,
  INVALID_APP: 500,
  APP_LOAD_FAILED: 500,
  LISTEN_FAILED: 500,
  INTERNAL: 500,
  RECORD_UNREADABLE: 500,
  STORE_UNAVAILABLE: 503,
  STORE_FULL: 503,
  /**
   * The store is answering but this server's requests already queue for its connections
   * past the bound (PostgreSQL's `--postgres-max-waiting`): nothing was sent; `Retry-After`
   * says when to try again.
   */
  STORE_BUSY: 503,
  /**
   * Another process serves the SQLite data directory (`holdpoint serve` refuses to
   * start); never an HTTP answer.
   */
  STORE_IN_USE: 409,
  OUTCOME_UNKNOWN: 503,
  /** A SQL store's database is at an older schema and migrating was not allowed. */
  SCHEMA_OUTDATED: 503,
  /** A SQL store's database is at a newer schema than this version of Holdpoint knows. */
  SCHEMA_TOO_NEW: 503,
  AUTH_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** Whether `code` is one of ours (an own key: `toString` and the like are not codes). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(errorStatus, code);
}

/** A failure with a stable code; transports map `status` onto their protocol. */
export class HoldpointError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'HoldpointError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

/** SESSION_NOT_FOUND for `sessionId`. */
export function sessionNotFound(sessionId: string): HoldpointError {
  return new HoldpointError('SESSION_NOT_FOUND', `No session ${sessionId}.`, {
    session_id: sessionId,
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
