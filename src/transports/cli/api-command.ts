import { readFile } from 'node:fs/promises';
import { HoldpointError } from '../../core/errors.js';
import { OPERATIONS_BY_RESOURCE } from '../http/operations/index.js';
import {
  answersOnlyByStream,
  callOperation,
  type HttpCredentials,
  isOperationName,
  type OperationInput,
} from './server-request.js';

export const API_USAGE =
  'usage: holdpoint api [OPERATION [--param NAME=VALUE]… [--query NAME=VALUE]… [--body JSON|@FILE|@-]]; with [--url URL] [--user NAME --roles a,b | --token TOKEN]';

/**
 * `holdpoint api` alone: every operation of the REST API, by resource, as the
 * definitions declare them: its name, method, path and summary; one that answers only
 * with a stream says so (the command does not call it).
 */
export function operationsText(): string {
  const all = Object.values(OPERATIONS_BY_RESOURCE).flat();
  const nameWidth = Math.max(...all.map((operation) => operation.name.length));
  const pathWidth = Math.max(...all.map((operation) => operation.path.length));
  const groups = Object.entries(OPERATIONS_BY_RESOURCE).map(([resource, operations]) => {
    const lines = operations.map((operation) => {
      const stream = answersOnlyByStream(operation)
        ? ` (a stream, ${operation.alsoAnswers?.contentType}: not called here)`
        : '';
      return `  ${operation.name.padEnd(nameWidth)}  ${operation.method.toUpperCase().padEnd(6)} ${operation.path.padEnd(pathWidth)}  ${operation.summary}${stream}`;
    });
    return [resource, ...lines].join('\n');
  });
  return `${groups.join('\n\n')}\n\nholdpoint api OPERATION [--param NAME=VALUE]… [--query NAME=VALUE]… [--body JSON|@FILE|@-] calls one.`;
}

/** `NAME=VALUE` pairs as the command line gives them (`--param`, `--query`), by name. */
function pairs(flag: 'param' | 'query', given: string[]): Record<string, string> {
  const byName = new Map<string, string>();
  for (const pair of given) {
    const at = pair.indexOf('=');
    if (at < 1) {
      throw new HoldpointError('VALIDATION_FAILED', `--${flag} takes NAME=VALUE: ${pair}`);
    }
    const name = pair.slice(0, at);
    if (byName.has(name)) {
      throw new HoldpointError('VALIDATION_FAILED', `--${flag} ${name} is given twice.`);
    }
    byName.set(name, pair.slice(at + 1));
  }
  // Own properties only, `__proto__` and `constructor` included: the path and the wire
  // schemas then refuse a name that is not theirs.
  return Object.fromEntries(byName);
}

/** Everything `stream` gives, as text. */
async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let read = '';
  for await (const chunk of stream) read += chunk.toString();
  return read;
}

/** A `--body @FILE`'s text; a file that cannot be read is the input refused, not a crash. */
async function fileText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `--body @${file}: cannot read ${file} (${code}).`,
    );
  }
}

/** The body `--body` gives: JSON as written, `@FILE`'s JSON, or (`@-`) stdin's. */
async function bodyOf(flag: string, stdin: NodeJS.ReadableStream): Promise<unknown> {
  const json = !flag.startsWith('@')
    ? flag
    : flag === '@-'
      ? await text(stdin)
      : await fileText(flag.slice(1));
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `--body is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** What `holdpoint api OPERATION` was given to send. */
export interface ApiArguments {
  params: string[];
  query: string[];
  body?: string;
}

/**
 * `holdpoint api OPERATION …`: calls the operation named `name` on the server at
 * `baseUrl` as `credentials` and answers what it printed: its JSON answer, indented
 * (an answer in another form as it came). An unknown name is refused with a pointer to
 * the list.
 */
export async function apiCallText(
  baseUrl: string,
  credentials: HttpCredentials,
  name: string,
  args: ApiArguments,
  stdin: NodeJS.ReadableStream,
): Promise<string> {
  if (!isOperationName(name)) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `No operation is named ${name}: \`holdpoint api\` lists them all.`,
    );
  }
  const input: OperationInput = {
    params: pairs('param', args.params),
    query: pairs('query', args.query),
    ...(args.body === undefined ? {} : { body: await bodyOf(args.body, stdin) }),
  };
  const answer = await callOperation(baseUrl, credentials, name, input);
  return typeof answer === 'string' ? answer.replace(/\n$/, '') : JSON.stringify(answer, null, 2);
}
