/** A response with its status and parsed JSON body. */
export interface JsonResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
  body: any;
}

/** Who a test client says it is (the server's `dev` sign-in). */
export interface TestIdentity {
  /** Default: the `user_id` the request names, else `tester`. */
  user?: string;
  roles?: string[];
}

/** The headers that sign a request in (the server's `dev` mode) as `user` with `roles`. */
export function signedInAs(user: string, roles: string[] = []): Record<string, string> {
  return {
    'x-holdpoint-user': user,
    ...(roles.length > 0 ? { 'x-holdpoint-roles': roles.join(',') } : {}),
  };
}

/**
 * Who tests that are about something else act as: an admin and an approver, so they
 * may read anything and decide any approval they did not ask for themselves.
 */
export const TESTER_ROLES = ['admin', 'approver'];
export const TESTER = signedInAs('tester', TESTER_ROLES);

/**
 * Minimal JSON-over-HTTP client for tests against a real server in `dev` sign-in mode.
 * It signs each request in as `identity.user`, or else as the `user_id` the request's
 * body or query names (so a test reads as the person acting), with `identity.roles`
 * (by default TESTER_ROLES, so tests about other things may read any session and
 * decide what they did not ask for).
 */
export class JsonClient {
  constructor(
    readonly baseUrl: string,
    readonly identity: TestIdentity = { roles: TESTER_ROLES },
  ) {}

  /** The sign-in headers for a request that names `named` (if anyone). */
  headersFor(named: unknown): Record<string, string> {
    const user = this.identity.user ?? (typeof named === 'string' ? named : 'tester');
    return signedInAs(user, this.identity.roles);
  }

  /** POSTs a body (a string is sent as is, so tests can send broken JSON). */
  async post(
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse> {
    const named = (body as { user_id?: unknown } | null)?.user_id;
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.headersFor(named), ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<JsonResponse> {
    const named = new URL(path, this.baseUrl).searchParams.get('user_id') ?? undefined;
    const response = await fetch(`${this.baseUrl}${path}`, {
      headers: { ...this.headersFor(named), ...headers },
    });
    return { status: response.status, body: await response.json() };
  }
}
