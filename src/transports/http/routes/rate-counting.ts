import type { MiddlewareHandler } from 'hono';
import type { HoldpointRuntime } from '../../../runtime/holdpoint-runtime.js';
import type { WithPrincipal } from '../caller.js';

// Rate counting, in one place: every API request against its principal's request limit,
// and what starts or resumes a run against its run limit too (runtime.countRequest).

/** Counts every API request against its principal's request limit, before anything is read. */
export function countRequests<E extends WithPrincipal>(
  runtime: HoldpointRuntime,
): MiddlewareHandler<E> {
  return async (c, next) => {
    await runtime.countRequest(c.get('principal'), 'requests');
    await next();
  };
}

/**
 * Counts a request that starts or resumes a run against the principal's run limit:
 * placed after its input is read, so a malformed request costs no run, and before it acts.
 */
export function countRuns<E extends WithPrincipal>(
  runtime: HoldpointRuntime,
): MiddlewareHandler<E> {
  return async (c, next) => {
    await runtime.countRequest(c.get('principal'), 'runs');
    await next();
  };
}
