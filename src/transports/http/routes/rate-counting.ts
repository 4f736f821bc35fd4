import type { Context } from 'hono';
import type { HoldpointRuntime } from '../../../runtime/holdpoint-runtime.js';
import type { RateKind } from '../../../runtime/limits/rate-limits.js';
import type { WithPrincipal } from '../caller.js';

// Rate counting, in one place, at one store call per request: every API request counts
// against its principal's request limit, and one that starts or resumes a run against
// its run limit too, both in that one call.

/** The kinds an API request counts against: `requests`, and `runs` for one that runs. */
function kindsOf(countsAsRun: boolean): RateKind[] {
  return countsAsRun ? ['requests', 'runs'] : ['requests'];
}

/**
 * Counts a request of `c`'s principal: before anything is read for one that starts
 * nothing; for one that starts or resumes a run, once its input is read (a malformed
 * request costs no run, and is still counted as a request: see `countRefused`).
 */
export function countRequest<E extends WithPrincipal>(
  c: Context<E>,
  runtime: HoldpointRuntime,
  countsAsRun: boolean,
): Promise<void> {
  return runtime.countRequest(c.get('principal'), ...kindsOf(countsAsRun));
}

/** Counts a request refused before it was counted (its input was malformed). */
export function countRefused<E extends WithPrincipal>(
  c: Context<E>,
  runtime: HoldpointRuntime,
): Promise<void> {
  return runtime.countRequest(c.get('principal'), 'requests');
}
