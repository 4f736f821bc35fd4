import { HoldpointError } from '../../core/errors.js';
import { hashArgs } from '../../core/hash.js';
import type { AuditEntry, Lease, Pause, RunRecord, SessionMeta } from '../../core/types.js';
import { AUDIT_GENESIS, chainAudit } from '../audit/audit-chain.js';
import { approvalAudit } from '../audit/audit-entries.js';
import { settledAnswers } from '../decision/settlement.js';
import type { SessionSnapshot, SessionWrites } from '../session-shapes.js';

export function touch(meta: SessionMeta, patch: Partial<SessionMeta>, now: number): SessionMeta {
  return { ...meta, ...patch, updatedAt: now };
}

/** running or paused → idle, its lease gone. */
export function idle(meta: SessionMeta, now: number): SessionMeta {
  return touch(meta, { status: 'idle', lease: undefined }, now);
}

/**
 * `writes` as they are committed: their audit lines linked after `head`, the chain
 * head of the snapshot the transition read (AUDIT_GENESIS for a session stored before
 * the chain), and the meta carrying the new head. `apply` (TransactionalStore) chains
 * every transition's writes so inside the compare-and-set, so a commit extends the
 * chain it read or is not stored: concurrent writers on any number of processes leave
 * one linear chain per session.
 */
export function chainWrites(head: string | undefined, writes: SessionWrites): SessionWrites {
  const chained = chainAudit(head ?? AUDIT_GENESIS, writes.audit);
  return { ...writes, meta: { ...writes.meta, auditHead: chained.head }, audit: chained.lines };
}

/**
 * Whether the session's run was interrupted: it is running, but the segment driving
 * it stopped renewing its lease (its process died) and the lease lapsed by `now`.
 */
export function isInterrupted(meta: SessionMeta, now: number): boolean {
  return meta.status === 'running' && (meta.lease?.until ?? 0) <= now;
}

/** Refuses a segment whose lease no longer holds the session. */
export function requireLease(
  snapshot: SessionSnapshot,
  invocationId: string,
  lease: Lease,
): RunRecord {
  const { meta, run } = snapshot;
  if (
    meta.status !== 'running' ||
    meta.invocationId !== invocationId ||
    meta.lease?.owner !== lease.owner ||
    !run
  ) {
    throw new HoldpointError(
      'LEASE_LOST',
      'The run lost its session: its lease lapsed and another run took the session over.',
      { session_id: meta.sessionId, invocation_id: invocationId },
    );
  }
  return run;
}

/**
 * `executed` lines for the approved confirmations of the resumed pause whose call ran
 * (with the edited arguments' hash when an edit ran); none for a call answered in the
 * tool's place: its tool did not run.
 */
export function executedAudit(
  resumed: Pause | undefined,
  callIds: string[],
  now: number,
): AuditEntry[] {
  if (!resumed || callIds.length === 0) return [];
  const ran = new Set(callIds);
  const answers = settledAnswers(resumed);
  return resumed.approvals.flatMap((approval) => {
    const answer = ran.has(approval.toolCallId) ? answers.get(approval.toolCallId) : undefined;
    if (approval.kind !== 'confirmation' || !answer?.approved) return [];
    if (answer.response !== undefined) return [];
    const edited = answer.editedArgs && { editedArgsHash: hashArgs(answer.editedArgs) };
    return [approvalAudit(resumed, approval, 'executed', 'agent', now, edited ?? {})];
  });
}
