import { type ErrorCode, HoldpointError } from '../../core/errors.js';

/**
 * The HTTP status the API answers each error code with: every code has one (what each
 * means: `ERROR_CODES`, src/core/errors.ts).
 */
export const errorStatus = {
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  UNKNOWN_APP: 400,
  UNAUTHENTICATED: 401,
  LOGIN_FAILED: 400,
  FORBIDDEN: 403,
  EDIT_NOT_ALLOWED: 403,
  RESPOND_NOT_ALLOWED: 403,
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
  STORE_BUSY: 503,
  STORE_IN_USE: 409,
  OUTCOME_UNKNOWN: 503,
  SCHEMA_OUTDATED: 503,
  SCHEMA_TOO_NEW: 503,
  AUTH_UNAVAILABLE: 503,
} as const satisfies Record<ErrorCode, number>;

/** The HTTP status `error` is answered with. */
export function httpStatus(error: HoldpointError): number {
  return errorStatus[error.code];
}

// `error.status` as 0.2 documented it, kept for one minor version (deprecated on the
// class): the status is the HTTP layer's to know, so it is defined here.
Object.defineProperty(HoldpointError.prototype, 'status', {
  get(this: HoldpointError) {
    return errorStatus[this.code];
  },
  configurable: true,
});
