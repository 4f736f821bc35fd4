import { type ErrorCode, errorStatus, HoldpointError } from '../../core/errors.js';

/** How a command proves who it is to the server: a token, or (dev mode) a name and roles. */
export type HttpCredentials = { token: string } | { user: string; roles: string[] };

/**
 * One JSON request to the Holdpoint server at `baseUrl` as `credentials`; a refusal is
 * thrown as the server's coded error, a server that cannot be reached as an error naming it.
 */
export async function serverRequest<T>(
  baseUrl: string,
  credentials: HttpCredentials,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> =
    'token' in credentials
      ? { authorization: `Bearer ${credentials.token}` }
      : {
          'x-holdpoint-user': credentials.user,
          ...(credentials.roles.length > 0
            ? { 'x-holdpoint-roles': credentials.roles.join(',') }
            : {}),
        };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    throw new Error(
      `Cannot reach the Holdpoint server at ${baseUrl}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
  const parsed = await response.json().catch(() => undefined);
  if (response.ok) return parsed as T;
  const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
  const code = error?.code && error.code in errorStatus ? (error.code as ErrorCode) : 'INTERNAL';
  throw new HoldpointError(code, error?.message ?? `HTTP ${response.status} from ${path}`);
}
