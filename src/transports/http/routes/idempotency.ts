import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { HoldpointRuntime } from '../../../runtime/holdpoint-runtime.js';
import type { RunOutcome } from '../../../runtime/run-outcome.js';
import type { OperationEnv } from './operation-env.js';

/**
 * Makes an operation run once per `Idempotency-Key` header when the request has one:
 * a retry with the same key, caller and request gets the first answer (see
 * HoldpointRuntime.idempotent); keys are scoped to `scope` and the caller. Placed after
 * the call is read (its body is part of what a retry must repeat).
 */
export function idempotency(
  scope: string,
  runtime: HoldpointRuntime,
): MiddlewareHandler<OperationEnv> {
  return async (c, next) => {
    const key = c.req.header('idempotency-key');
    if (key !== undefined) {
      const { by, params, body } = c.get('call');
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([params, body]))
        .digest('hex');
      c.set('runAct', (act) =>
        runtime.idempotent(
          { operation: scope, caller: by.id, key, fingerprint },
          act as (requestId?: string) => Promise<RunOutcome>,
        ),
      );
    }
    await next();
  };
}
