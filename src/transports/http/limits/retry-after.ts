import type { HoldpointError } from '../../../core/errors.js';

/**
 * The whole seconds a client should wait before it tries again, when `error` says
 * (`retry_after_seconds`: RATE_LIMITED, TOO_MANY_SOCKETS); what `Retry-After` carries.
 */
export function retryAfterOf(error: HoldpointError): number | undefined {
  const seconds = error.details?.retry_after_seconds;
  return typeof seconds === 'number' ? seconds : undefined;
}
