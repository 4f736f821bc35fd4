/** An error from the Holdpoint server (or from failing to reach it), with a stable code. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  /** The error's other fields, as the server sent them (e.g. `login_url`). */
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, status = 0, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** The code used when the server cannot be reached at all. */
export const UNREACHABLE = 'SERVER_UNREACHABLE';

const CODE_PREFIX = /^([A-Z][A-Z_]+):\s*(.*)$/s;

/**
 * Any thrown value as an ApiError: stream errors arrive as `CODE: message` text, network
 * failures as TypeErrors from fetch or a closed WebSocket.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const text = error instanceof Error ? error.message : String(error);
  const match = CODE_PREFIX.exec(text);
  if (match?.[1]) return new ApiError(match[1], match[2] ?? '');
  if (error instanceof TypeError || /fetch|network|websocket|socket|connect/i.test(text)) {
    return new ApiError(UNREACHABLE, text);
  }
  return new ApiError('UNKNOWN', text);
}

interface Explanation {
  title: string;
  detail: string;
  /** Whether trying again can help. */
  retry: boolean;
}

const EXPLANATIONS: Record<string, Explanation> = {
  [UNREACHABLE]: {
    title: 'Can’t reach the Holdpoint server',
    detail: 'Check that the server is running and your connection is up, then try again.',
    retry: true,
  },
  STORE_UNAVAILABLE: {
    title: 'Storage is unavailable',
    detail: 'Holdpoint can’t reach its store right now. Nothing was changed — try again shortly.',
    retry: true,
  },
  APPROVAL_EXPIRED: {
    title: 'This approval expired',
    detail: 'Nobody decided in time, so the paused run can no longer resume. Start a new request.',
    retry: false,
  },
  ALREADY_DECIDED: {
    title: 'Already decided elsewhere',
    detail:
      'Someone decided this approval first (perhaps in another tab). Showing the latest state.',
    retry: false,
  },
  ARGS_MISMATCH: {
    title: 'The call changed',
    detail:
      'Someone changed this call’s arguments after you opened it, so nothing was decided. Review the call as it stands now.',
    retry: false,
  },
  EDIT_NOT_ALLOWED: {
    title: 'This change is not allowed',
    detail: 'The tool’s policy does not let this argument be changed. Nothing was decided.',
    retry: false,
  },
  RESPOND_NOT_ALLOWED: {
    title: 'Cannot answer in the tool’s place',
    detail: 'The tool’s policy does not allow a response instead of running it.',
    retry: false,
  },
  GRANT_NOT_ALLOWED: {
    title: 'This grant is not allowed',
    detail: 'The tool’s policy does not allow this grant. Nothing was decided.',
    retry: false,
  },
  VALIDATION_FAILED: {
    title: 'Not accepted',
    detail:
      'The server did not accept what was sent, so nothing changed. Correct it and try again.',
    retry: false,
  },
  GRANT_NOT_FOUND: {
    title: 'Grant not found',
    detail: 'The server has no such grant any more, or it is not yours to revoke.',
    retry: false,
  },
  PAUSE_CANCELLED: {
    title: 'This run was cancelled',
    detail: 'The paused run was cancelled, so there is nothing left to decide.',
    retry: false,
  },
  SESSION_PAUSED: {
    title: 'Waiting for an approval',
    detail:
      'This conversation is paused. Decide the pending approval before sending a new message.',
    retry: false,
  },
  SESSION_BUSY: {
    title: 'Still working',
    detail: 'Another request is running in this conversation. Try again in a moment.',
    retry: true,
  },
  SESSION_NOT_FOUND: {
    title: 'Conversation not found',
    detail: 'This conversation no longer exists on the server. Start a new chat.',
    retry: false,
  },
  APPROVAL_NOT_FOUND: {
    title: 'Approval not found',
    detail: 'The server has no such pending approval any more.',
    retry: false,
  },
  EFFECT_IN_PROGRESS: {
    title: 'Already in progress',
    detail: 'The approved action is being carried out elsewhere. Check back in a moment.',
    retry: true,
  },
  UNAUTHENTICATED: {
    title: 'You are signed out',
    detail: 'Your sign-in ended or was not accepted. Sign in again, then retry.',
    retry: false,
  },
  RUN_FAILED: {
    title: 'The agent run failed',
    detail: 'Something went wrong while the agent worked on this request.',
    retry: true,
  },
};

/** A human title and explanation for an error, keeping the server's words as detail. */
export function explain(error: ApiError): Explanation & { code: string } {
  const known = EXPLANATIONS[error.code];
  if (known) return { ...known, code: error.code };
  return {
    title: 'Something went wrong',
    detail: error.message || 'An unexpected error occurred.',
    retry: true,
    code: error.code,
  };
}
