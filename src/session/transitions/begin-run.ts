import { HoldpointError } from '../../core/errors.js';
import type { AuditEntry, Lease, RunRecord, SessionMeta } from '../../core/types.js';
import { AUDIT_GENESIS } from '../audit/audit-chain.js';
import type { NewSession, SessionSnapshot, SessionWrites, Transition } from '../session-shapes.js';
import { undecidedApprovals } from './pause-state.js';
import { chainWrites, isInterrupted, touch } from './session-writes.js';

function runInterrupted(meta: SessionMeta): HoldpointError {
  return new HoldpointError(
    'RUN_INTERRUPTED',
    `Run ${meta.invocationId} on this session was interrupted (the process driving it stopped); ` +
      'resume it by its invocation id first.',
    { session_id: meta.sessionId, invocation_id: meta.invocationId },
  );
}

/** How long a session's title (the start of its first message) may be, in characters. */
export const TITLE_LENGTH = 80;

/** A session's title from its first message: whitespace collapsed, cut at TITLE_LENGTH. */
function sessionTitle(query: string): string {
  const text = query.replace(/\s+/g, ' ').trim();
  const chars = [...text];
  return chars.length <= TITLE_LENGTH ? text : `${chars.slice(0, TITLE_LENGTH - 1).join('')}…`;
}

/** The `started` line of a run: who sent the message that began it. */
function startedAudit(run: RunRecord): AuditEntry {
  return {
    at: run.startedAt,
    action: 'started',
    sessionId: run.sessionId,
    invocationId: run.invocationId,
    actor: run.userId,
  };
}

/**
 * A new run takes the session under `lease`, audited `started` by the run's user;
 * refused while paused (SESSION_PAUSED), while a live lease holds it (SESSION_BUSY),
 * and while its run is interrupted (RUN_INTERRUPTED: that run is resumed by its
 * invocation id, never silently dropped).
 */
export function beginRunTransition(
  snapshot: SessionSnapshot,
  run: RunRecord,
  lease: Lease,
): Transition<void> {
  const { meta } = snapshot;
  if (meta.status === 'paused') {
    throw new HoldpointError(
      'SESSION_PAUSED',
      'This session is waiting for an approval; decide or cancel it first.',
      { pending_approvals: undecidedApprovals(snapshot.pause) },
    );
  }
  if (isInterrupted(meta, run.startedAt)) {
    // Touched, so the store indexes the interrupted run again (one stopped by a release
    // that kept no index is found from here on).
    return {
      writes: { meta: touch(meta, {}, run.startedAt), audit: [] },
      error: runInterrupted(meta),
    };
  }
  if (meta.status === 'running') {
    throw new HoldpointError('SESSION_BUSY', 'A run is in progress on this session.');
  }
  return {
    writes: {
      meta: touch(
        meta,
        {
          status: 'running',
          invocationId: run.invocationId,
          lease,
          title: meta.title ?? sessionTitle(run.query),
        },
        run.startedAt,
      ),
      runs: [run],
      audit: [startedAudit(run)],
    },
  };
}

/**
 * What a new session is written with: idle, or already held by its first run; its
 * audit chain starts at AUDIT_GENESIS.
 */
export function newSessionWrites(
  session: NewSession,
  begin?: { run: RunRecord; lease: Lease },
): SessionWrites {
  const meta: SessionMeta = { ...session, status: 'idle', updatedAt: session.createdAt };
  const writes = begin
    ? (beginRunTransition({ meta }, begin.run, begin.lease).writes as SessionWrites)
    : { meta, audit: [] };
  return chainWrites(AUDIT_GENESIS, writes);
}
