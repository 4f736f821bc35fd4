import type { AuditEntry } from '../../core/types.js';
import type { SessionSnapshot, Transition } from '../session-shapes.js';

/** A notification of an approval event that Holdpoint gave up sending, as its audit line says it. */
export interface UndeliveredNotice {
  invocationId: string;
  approvalId: string;
  toolName: string;
  /** The channel it was for (`webhook`, `slack`, `email`, …). */
  channel: string;
  /** Whom it was for (`user:<id>`, `role:<name>`, `endpoint:<channel>`) and why it failed. */
  reason: string;
}

/**
 * A notification of one of the session's approval events was given up (no attempt
 * left, or a refusal another attempt cannot fix): an `undelivered` line by `system`, so
 * the session's log shows who was never told. The session itself does not change.
 */
export function undeliveredTransition(
  snapshot: SessionSnapshot,
  notice: UndeliveredNotice,
  now: number,
): Transition<void> {
  const line: AuditEntry = {
    at: now,
    action: 'undelivered',
    sessionId: snapshot.meta.sessionId,
    invocationId: notice.invocationId,
    actor: 'system',
    approvalId: notice.approvalId,
    toolName: notice.toolName,
    channel: notice.channel,
    reason: notice.reason,
  };
  return { writes: { meta: snapshot.meta, audit: [line] } };
}
