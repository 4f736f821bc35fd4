import { z } from 'zod';
import { HoldpointError, isErrorCode } from '../../core/errors.js';
import { type Operation, type OperationName, operationNamed } from '../http/operations/index.js';

/** How a command proves who it is to the server: a token, or (dev mode) a name and roles. */
export type HttpCredentials = { token: string } | { user: string; roles: string[] };

/** What a call of an operation sends: its path's parameters, its query and its body. */
export interface OperationInput {
  /** By the names its path gives them (`approvalId` for `decideApproval`): every one, no other. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** The JSON body, as the operation's wire schema reads it. */
  body?: unknown;
}

/**
 * The server could not be asked at all (refused, unresolved, a port fetch will not use),
 * or answered as no Holdpoint server does (a web page): not a command given wrong, so
 * the command line says it without its usage.
 */
export class ServerUnusableError extends Error {
  override readonly name = 'ServerUnusableError';
}

/** Whether `name` is an operation's name (its OpenAPI `operationId`). */
export function isOperationName(name: string): name is OperationName {
  return operationNamed(name) !== undefined;
}

/** Whether the operation answers only with a stream (SSE), never with JSON. */
export function answersOnlyByStream(operation: Operation): boolean {
  return operation.alsoAnswers !== undefined && operation.answer instanceof z.ZodNever;
}

/**
 * Calls the operation named `name` on the server at `baseUrl` as `credentials`, from its
 * definition: its method, its path with `params` filled in, `query` and `body` checked
 * against its own wire schemas before anything is sent (VALIDATION_FAILED naming the
 * field). Answers the server's JSON (an answer in another form, `readAudit`'s NDJSON,
 * as text); a refusal is thrown as the server's coded error, a server that cannot be
 * reached as an error naming it. An operation that answers only with a stream is refused,
 * and so is an address carrying a user or password (they would be printed).
 */
export async function callOperation<T = unknown>(
  baseUrl: string,
  credentials: HttpCredentials,
  name: OperationName,
  input: OperationInput = {},
): Promise<T> {
  refuseCredentialsIn(baseUrl);
  const operation = operationNamed(name);
  if (operation === undefined) {
    throw new HoldpointError('VALIDATION_FAILED', `No operation is named ${name}.`);
  }
  if (answersOnlyByStream(operation)) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `${name} answers only with a stream (${operation.alsoAnswers?.contentType}), not JSON: read ${operation.method.toUpperCase()} ${operation.path} with a streaming client (docs/http-api.md).`,
    );
  }
  const path = filledPath(operation, input.params ?? {});
  const query = input.query ?? {};
  if (operation.query) checkInput(operation, 'query', operation.query, query);
  else if (Object.keys(query).length > 0) {
    throw new HoldpointError('VALIDATION_FAILED', `${name} takes no query.`);
  }
  // A body the operation needs and was not given is checked (and sent) as `{}`: the
  // first field it lacks is named.
  const body = operation.body && !operation.optionalBody ? (input.body ?? {}) : input.body;
  if (operation.body) {
    if (body !== undefined) checkInput(operation, 'body', operation.body, body);
  } else if (body !== undefined) {
    throw new HoldpointError('VALIDATION_FAILED', `${name} takes no body.`);
  }
  const search = new URLSearchParams(query).toString();
  return (await serverRequest(
    baseUrl,
    credentials,
    operation.method.toUpperCase(),
    search ? `${path}?${search}` : path,
    body,
    operation.alsoAnswers?.contentType,
  )) as T;
}

/**
 * Refuses a server address with a user or password in it (`https://ann:secret@host`):
 * fetch refuses it too, but with a message that repeats the whole address, which a
 * command then prints. Credentials go as `--token` (or `--user`), never in the address.
 */
function refuseCredentialsIn(baseUrl: string): void {
  let address: URL;
  try {
    address = new URL(baseUrl);
  } catch {
    return; // Not an address at all: the request fails naming it, and it holds no credentials.
  }
  if (address.username === '' && address.password === '') return;
  throw new HoldpointError(
    'VALIDATION_FAILED',
    'The server address carries a user or password (user:password@host): give the credentials as --token (or --user) instead.',
  );
}

/**
 * The operation's path with each `:name` replaced by `params[name]`, encoded; a value
 * that is a dot segment (`.`, `..`) is refused, as it would climb out of the path.
 */
function filledPath(operation: Operation, params: Record<string, string>): string {
  const names = [...operation.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
  const unknown = Object.keys(params).find((name) => !names.includes(name));
  if (unknown !== undefined) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `${operation.name} has no path parameter ${unknown} (its path: ${operation.path}).`,
    );
  }
  return operation.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (!value) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        `${operation.name} needs the path parameter ${name} (its path: ${operation.path}).`,
      );
    }
    // encodeURIComponent leaves `.` as it is, and a URL resolves `.` and `..` segments
    // (their %2e spellings too): such a value would send the call to another path.
    if (value === '.' || value === '..') {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        `${operation.name} path parameter ${name} cannot be ${value} (not sent).`,
      );
    }
    return encodeURIComponent(value);
  });
}

/** Checks a body or query against the operation's wire schema: the field it fails named. */
function checkInput(
  operation: Operation,
  where: 'body' | 'query',
  schema: z.ZodType,
  input: unknown,
): void {
  const parsed = schema.safeParse(input);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const field = [where, ...(issue?.path ?? []).map(String)].join('.');
  throw new HoldpointError(
    'VALIDATION_FAILED',
    `${operation.name} ${field}: ${issue?.message ?? 'invalid input'} (not sent)`,
    {
      issues: parsed.error.issues.map((i) => ({
        path: [where, ...i.path.map(String)].join('.'),
        message: i.message,
      })),
    },
  );
}

/**
 * One request to the server as `credentials`: its JSON answer, or its text when it is
 * in `textType`, the other form the operation declares (`readAudit`'s NDJSON).
 */
async function serverRequest(
  baseUrl: string,
  credentials: HttpCredentials,
  method: string,
  path: string,
  body: unknown,
  textType: string | undefined,
): Promise<unknown> {
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
    throw new ServerUnusableError(
      `Cannot reach the Holdpoint server at ${baseUrl}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
  const contentType = response.headers.get('content-type') ?? '';
  if (response.ok && !/\bjson\b/.test(contentType)) {
    if (textType !== undefined && contentType.startsWith(textType)) return response.text();
    // Some other web server, or a Holdpoint mounted under another path, answering a page.
    throw new ServerUnusableError(
      `The server at ${baseUrl} answered ${method} ${path.replace(/\?.*/, '')} with ${contentType.split(';')[0] || 'no content type'}, not Holdpoint's JSON: is it a Holdpoint server's address?`,
    );
  }
  const parsed = await response.json().catch(() => undefined);
  if (response.ok) return parsed;
  const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
  const code = isErrorCode(error?.code) ? error.code : 'INTERNAL';
  throw new HoldpointError(code, error?.message ?? `HTTP ${response.status} from ${path}`);
}
