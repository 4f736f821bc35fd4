import type { Lease } from '../../core/types.js';
import type { SessionSnapshot, Transition } from '../session-shapes.js';
import { requireLease } from './session-writes.js';

/**
 * The running segment keeps its session a while longer; LEASE_LOST when another run
 * holds it.
 */
export function renewLeaseTransition(
  snapshot: SessionSnapshot,
  invocationId: string,
  lease: Lease,
): Transition<void> {
  requireLease(snapshot, invocationId, lease);
  return { writes: { meta: { ...snapshot.meta, lease }, audit: [] } };
}
