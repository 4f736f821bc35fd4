import { ApiError, UNREACHABLE } from './api-error.js';
import type {
  ApiApprovalsPage,
  ApiApprovalView,
  ApiInboxEvent,
  ApiMe,
  DecisionBody,
  DecisionOutcome,
  InboxApproval,
} from './api-types.js';
import { readServerSentEvents } from './server-sent-events.js';

/** Headers, or a function giving them for each request (a token that refreshes). */
export type HeadersSource = HeadersInit | (() => HeadersInit | Promise<HeadersInit>);

/** Where a Holdpoint server answers, and how this page proves who it is to it. */
export interface HoldpointClientOptions {
  /**
   * The server's address with its mount, without a trailing slash
   * (`https://approvals.example.com`, `/hp`); empty (the default): this page's own origin.
   */
  url?: string;
  /**
   * Sent with every request: how your app authenticates to Holdpoint when not by cookie
   * (`{ authorization: 'Bearer …' }`, an API key).
   */
  headers?: HeadersSource;
  /**
   * Whether the browser sends its cookies (`fetch`'s `credentials`): `same-origin` by
   * default; `include` for a server on another origin that signs in by cookie.
   */
  credentials?: RequestCredentials;
  /** The `fetch` to call (default: the global one); for tests and instrumented clients. */
  fetch?: typeof fetch;
}

/** A page of pending approvals, and where the next one starts when there is more. */
export interface ApprovalPage {
  approvals: InboxApproval[];
  nextCursor?: string;
}

/** Which pending approvals to list: whose (default: the caller's), from where, how many. */
export interface ApprovalsQuery {
  userId?: string;
  cursor?: string;
  limit?: number;
}

/**
 * The REST API's calls the approval components make, on one server: each answers the
 * JSON the server sends or throws an `ApiError` with its stable code.
 */
export interface HoldpointClient {
  /** Any REST call under the server's address (`/api/…`): the answer's JSON. */
  request<T>(path: string, init?: RequestInit): Promise<T>;
  /** Who the server takes this page for (`GET /api/me`). */
  whoAmI(): Promise<ApiMe>;
  /** A page of the approvals the caller may decide, soonest expiry first (`GET /api/approvals`). */
  listApprovals(query?: ApprovalsQuery): Promise<ApprovalPage>;
  /** One approval as of now, with its pause and whether the caller may decide it. */
  getApproval(approvalId: string): Promise<ApiApprovalView>;
  /** Decides one approval (`POST /api/approvals/:approvalId`): the run's outcome. */
  decideApproval(
    approvalId: string,
    decision: DecisionBody,
    userId?: string,
  ): Promise<DecisionOutcome>;
  /**
   * Follows the caller's inbox (`GET /api/approvals/events`): `onInbox` on connect and
   * after each change, until `signal` aborts. A dropped stream is opened again after
   * `retryMs`; one the server refuses (a status) after `refusedRetryMs`.
   */
  watchInbox(
    onInbox: (event: ApiInboxEvent) => void,
    signal: AbortSignal,
    timing?: { retryMs?: number; refusedRetryMs?: number },
  ): Promise<void>;
}

/** How long after a dropped inbox stream it is opened again. */
const RETRY_MS = 1_000;
/** How long after a refused one (signed out, a proxy's error): the server said no. */
const REFUSED_RETRY_MS = 30_000;

/** The error an answer that is not 2xx carries: the server's code, else one from its status. */
function answerError(status: number, body: unknown): ApiError {
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (error?.code) {
    const { code, message, ...details } = error;
    return new ApiError(code, message ?? '', status, details);
  }
  // A proxy answering for a server that is down has no Holdpoint body.
  const code = status >= 502 && status <= 504 ? UNREACHABLE : 'HTTP_ERROR';
  return new ApiError(code, `HTTP ${status}`, status);
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** A client of one Holdpoint server's REST API, as `options` reach and authenticate to it. */
export function createHoldpointClient(options: HoldpointClientOptions = {}): HoldpointClient {
  const base = options.url ?? '';
  const credentials = options.credentials ?? 'same-origin';
  const call = (input: string, init: RequestInit) => (options.fetch ?? fetch)(input, init);

  async function send(path: string, init: RequestInit = {}): Promise<Response> {
    const own = typeof options.headers === 'function' ? await options.headers() : options.headers;
    const headers = new Headers(own);
    for (const [name, value] of new Headers(init.headers)) headers.set(name, value);
    if (init.body !== undefined && !headers.has('content-type')) {
      headers.set('content-type', 'application/json');
    }
    try {
      return await call(`${base}${path}`, { credentials, ...init, headers });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiError(UNREACHABLE, error instanceof Error ? error.message : String(error));
    }
  }

  async function request<T>(path: string, init?: RequestInit): Promise<T> {
    const response = await send(path, init);
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok) throw answerError(response.status, body);
    return body as T;
  }

  async function watchOnce(
    onInbox: (event: ApiInboxEvent) => void,
    signal: AbortSignal,
  ): Promise<'dropped' | 'refused'> {
    let response: Response;
    try {
      response = await send('/api/approvals/events', {
        headers: { accept: 'text/event-stream' },
        signal,
      });
    } catch {
      return 'dropped';
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return 'refused';
    }
    try {
      for await (const event of readServerSentEvents(response.body, signal)) {
        if (event.event === 'inbox') onInbox(JSON.parse(event.data) as ApiInboxEvent);
      }
    } catch {
      // A stream cut mid-event: opened again like any drop.
    }
    return 'dropped';
  }

  return {
    request,
    whoAmI: () => request('/api/me'),
    async listApprovals(query = {}) {
      const params = new URLSearchParams();
      if (query.userId) params.set('user_id', query.userId);
      if (query.cursor) params.set('cursor', query.cursor);
      if (query.limit) params.set('limit', String(query.limit));
      const search = params.size > 0 ? `?${params}` : '';
      const page = await request<ApiApprovalsPage>(`/api/approvals${search}`);
      return { approvals: page.approvals, nextCursor: page.next_cursor };
    },
    getApproval: (approvalId) => request(`/api/approvals/${encodeURIComponent(approvalId)}`),
    decideApproval: (approvalId, decision, userId) =>
      request(`/api/approvals/${encodeURIComponent(approvalId)}`, {
        method: 'POST',
        body: JSON.stringify(userId === undefined ? decision : { ...decision, user_id: userId }),
      }),
    async watchInbox(onInbox, signal, timing = {}) {
      while (!signal.aborted) {
        const ended = await watchOnce(onInbox, signal);
        if (signal.aborted) return;
        await pause(
          ended === 'refused'
            ? (timing.refusedRetryMs ?? REFUSED_RETRY_MS)
            : (timing.retryMs ?? RETRY_MS),
          signal,
        );
      }
    },
  };
}
