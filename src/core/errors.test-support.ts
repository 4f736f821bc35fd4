import { type ErrorCode, isHoldpointError } from './errors.js';

/**
 * Test support: the code `promise` fails with, `ok` when it succeeds, and `raw: …`
 * for a failure that is no HoldpointError (a leak the assertion then shows).
 */
export async function codeOf(
  promise: Promise<unknown>,
): Promise<ErrorCode | 'ok' | `raw: ${string}`> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return isHoldpointError(error) ? error.code : `raw: ${String(error)}`;
  }
}
