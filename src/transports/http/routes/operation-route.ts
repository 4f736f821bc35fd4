import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Principal } from '../../../core/principal.js';
import { validate } from '../../../core/validate.js';
import type { HoldpointRuntime } from '../../../runtime/holdpoint-runtime.js';
import type { Identity } from '../../auth/index.js';
import { requireActingAs } from '../caller.js';
import type { Operation, OperationCall } from '../operations/index.js';
import { readBody, readOptionalBody } from '../read-body.js';
import { idempotency } from './idempotency.js';
import type { OperationEnv } from './operation-env.js';
import { countRefused, countRequest } from './rate-counting.js';

/** What every operation's route needs from the app. */
export interface RouteDeps {
  runtime: HoldpointRuntime;
  logger: Logger;
  identity: Identity;
}

/** Who calls a public route: nobody was asked to prove anything. */
const NOBODY: Principal = { id: 'anonymous', roles: [] };

/**
 * Reads an operation's call — its body and query validated, who sends it (a `user_id` it
 * names must be the principal's), and where the API is mounted — and counts it against
 * its principal's limits (one store call): before reading, unless it starts or resumes a
 * run; then once its input is read, against both limits.
 */
function readCall(operation: Operation, deps: RouteDeps): MiddlewareHandler<OperationEnv> {
  const countsAsRun = operation.countsAsRun === true;
  const read = async (c: Context<OperationEnv>): Promise<OperationCall<object, object>> => {
    const body: object = operation.body
      ? await (operation.optionalBody ? readOptionalBody : readBody)(c, operation.body)
      : {};
    const query: object = operation.query ? validate(operation.query, c.req.query()) : {};
    const actingAs = operation.actingAs ?? ((b: object) => (b as { user_id?: string }).user_id);
    const by = operation.public ? NOBODY : c.get('principal');
    if (!operation.public) requireActingAs(by, actingAs(body));
    return {
      body,
      query,
      params: c.req.param(),
      by,
      mount: c.req.routePath.slice(0, -operation.path.length),
      request: c.req.raw,
      ...deps,
    };
  };
  return async (c, next) => {
    if (!operation.public && !countsAsRun) await countRequest(c, deps.runtime, false);
    let call: OperationCall<object, object>;
    try {
      call = await read(c);
    } catch (error) {
      if (countsAsRun) await countRefused(c, deps.runtime);
      throw error;
    }
    if (countsAsRun) await countRequest(c, deps.runtime, true);
    c.set('call', call);
    c.set('runAct', (act) => act());
    await next();
  };
}

/** Acts, then answers: a stream as it is, else the presented answer as JSON. */
function perform(operation: Operation): MiddlewareHandler<OperationEnv> {
  return async (c) => {
    const call = c.get('call');
    const result = await c.get('runAct')((requestId) => operation.act({ ...call, requestId }));
    if (result instanceof Response && c.req.method === 'HEAD') {
      // Nobody reads a HEAD answer's body: a stream's is cancelled at once, which ends
      // what it holds (an inbox stream's watch), instead of waiting forever.
      await result.body?.cancel();
      return new Response(null, { status: result.status, headers: result.headers });
    }
    if (result instanceof Response) return result;
    const answer: z.input<z.ZodType> = operation.present(result, call);
    return c.json(answer as object, operation.status?.(answer) ?? 200);
  };
}

/** The handlers of an operation's route, in order: count and read, once per key, act. */
export function operationHandlers(
  operation: Operation,
  deps: RouteDeps,
): [MiddlewareHandler<OperationEnv>, ...MiddlewareHandler<OperationEnv>[]] {
  const { idempotent } = operation;
  return [
    readCall(operation, deps),
    ...(idempotent ? [idempotency(idempotent, deps.runtime)] : []),
    perform(operation),
  ];
}
