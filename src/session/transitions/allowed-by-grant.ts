import type { Grant } from '../../core/grants.js';
import type { AuditEntry, Lease } from '../../core/types.js';
import type { SessionSnapshot, Transition } from '../session-shapes.js';
import { requireLease, touch } from './session-writes.js';

/**
 * A call of the running segment runs without a pause, allowed by `grant`: an
 * `allowed_by_grant` line (the grant, the tool, the call's arguments' hash), stored
 * before the tool runs. LEASE_LOST when the segment no longer holds the session.
 */
export function allowedByGrantTransition(
  snapshot: SessionSnapshot,
  call: { invocationId: string; lease: Lease; toolName: string; argsHash: string },
  grant: Pick<Grant, 'grantId' | 'grantedBy'>,
  now: number,
): Transition<void> {
  requireLease(snapshot, call.invocationId, call.lease);
  const line: AuditEntry = {
    at: now,
    action: 'allowed_by_grant',
    sessionId: snapshot.meta.sessionId,
    invocationId: call.invocationId,
    actor: `grant:${grant.grantedBy}`,
    toolName: call.toolName,
    argsHash: call.argsHash,
    grantId: grant.grantId,
  };
  return { writes: { meta: touch(snapshot.meta, {}, now), audit: [line] } };
}
