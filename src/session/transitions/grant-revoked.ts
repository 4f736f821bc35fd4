import type { Grant } from '../../core/grants.js';
import type { AuditEntry } from '../../core/types.js';
import type { SessionSnapshot, Transition } from '../session-shapes.js';
import { touch } from './session-writes.js';

/**
 * `grant`, made in this session, was revoked by `by`: a `grant_revoked` line, whatever
 * the session is doing (it changes nothing else of it).
 */
export function grantRevokedTransition(
  snapshot: SessionSnapshot,
  grant: Pick<Grant, 'grantId' | 'toolName'>,
  by: string,
  now: number,
): Transition<void> {
  const { meta } = snapshot;
  const line: AuditEntry = {
    at: now,
    action: 'grant_revoked',
    sessionId: meta.sessionId,
    invocationId: meta.invocationId ?? '',
    actor: by,
    toolName: grant.toolName,
    grantId: grant.grantId,
  };
  return { writes: { meta: touch(meta, {}, now), audit: [line] } };
}
