import { randomUUID } from 'node:crypto';
import { decisionPolicyOf } from '../../agents/decision-policy-of.js';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { entryOf } from '../../core/tool-entry.js';
import type { AuditEntry, Pause } from '../../core/types.js';
import { approvalAudit } from '../../session/audit/audit-entries.js';
import {
  approversOf,
  DEFAULT_APPROVERS,
  describeApprovers,
} from '../../session/decision/approvers.js';
import { finishRunTransition, savePauseTransition } from '../../session/transitions/index.js';
import type {
  SegmentEnd,
  SessionAppend,
  SessionSnapshot,
  SessionTrail,
} from '../../store/store.js';
import type { RunEventSink } from '../run-event.js';
import { pendingOutcome, type RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';
import type { SegmentCollector } from './segment-collector.js';

/** The segment whose end is being stored. */
export interface EndingSegment {
  app: string;
  sessionId: string;
  userId: string;
  invocationId: string;
  lease: SegmentEnd['lease'];
  emit: RunEventSink;
  /** The session as the segment's latest commit left it (SegmentStart's trail). */
  trail?: SessionTrail;
}

function endAudit(segment: EndingSegment, action: 'completed' | 'failed', at: number): AuditEntry {
  return {
    at,
    action,
    sessionId: segment.sessionId,
    invocationId: segment.invocationId,
    actor: 'agent',
  };
}

/**
 * What the segment's last commit tries first: the session as its previous commit stored
 * it. Not the trail itself: nothing of this segment commits after its end, so the end's
 * commit leaves no copy of what it stored behind (a segment held in place commits next
 * on what it reads).
 */
function lastCommitSeen(segment: EndingSegment): SessionSnapshot | undefined {
  return segment.trail?.snapshot;
}

/**
 * Stores how a segment ended — a pause, the run's completion, or its failure —
 * with everything it appended, and only then tells the caller and the streams.
 * A segment whose lease was lost is refused (LEASE_LOST) and what it appended is
 * dropped with it. With `holdUntil`, the segment waits in place for the pause's
 * decision until then (a tool's `waitForApproval`): the pause records it as its holder.
 */
export async function endSegment(
  ctx: RuntimeContext,
  segment: EndingSegment,
  collector: SegmentCollector,
  append: SessionAppend,
  holdUntil?: number,
): Promise<RunOutcome> {
  const now = ctx.clock.now();
  const end: SegmentEnd = {
    sessionId: segment.sessionId,
    invocationId: segment.invocationId,
    lease: segment.lease,
    append,
    executedCallIds: collector.takeExecuted(),
    now,
  };
  const asked = collector.approvals.length;
  try {
    if (collector.error !== undefined) return await failRun(ctx, segment, end, collector.error);
    if (asked > LIMITS.approvalsPerPause) {
      const why = `The agent asked for ${asked} approvals at once; at most ${LIMITS.approvalsPerPause} are allowed.`;
      return await failRun(ctx, segment, end, why, 'TOO_MANY_APPROVALS');
    }
    if (asked > 0) return await pauseRun(ctx, segment, end, collector, holdUntil);
    return await completeRun(ctx, segment, end, collector);
  } catch (error) {
    failed(segment, error);
    throw error;
  }
}

/** Tells the streams that the segment ended in `error`. */
function failed(segment: EndingSegment, error: unknown): void {
  const failure = isHoldpointError(error)
    ? error
    : new HoldpointError('INTERNAL', 'Internal error.');
  segment.emit({
    type: 'failed',
    sessionId: segment.sessionId,
    invocationId: segment.invocationId,
    code: failure.code,
    message: failure.message,
  });
}

/** Records the run failed with `error`, then throws `code`. */
async function failRun(
  ctx: RuntimeContext,
  segment: EndingSegment,
  end: SegmentEnd,
  error: string,
  code: 'RUN_FAILED' | 'TOO_MANY_APPROVALS' = 'RUN_FAILED',
): Promise<never> {
  await ctx.store.apply(
    end.sessionId,
    finishRunTransition,
    [end, { status: 'failed', error, audit: [endAudit(segment, 'failed', end.now)] }],
    lastCommitSeen(segment),
  );
  ctx.log(segment.sessionId, segment.invocationId).error({ error }, 'run failed');
  throw new HoldpointError(code, code === 'RUN_FAILED' ? `The agent run failed: ${error}` : error, {
    session_id: segment.sessionId,
    invocation_id: segment.invocationId,
  });
}

async function pauseRun(
  ctx: RuntimeContext,
  segment: EndingSegment,
  end: SegmentEnd,
  collector: SegmentCollector,
  holdUntil: number | undefined,
): Promise<RunOutcome> {
  const expiresAt = end.now + ctx.pauseTtlMs;
  const app = ctx.options.apps.get(segment.app);
  const pause: Pause = {
    pauseId: `pause-${randomUUID()}`,
    sessionId: segment.sessionId,
    invocationId: segment.invocationId,
    app: segment.app,
    userId: segment.userId,
    status: 'pending',
    approvals: collector.approvals.map((a) => {
      // A tool that awaits inline is running already: nothing of its call can change.
      const decisionPolicy =
        app && a.awaitIndex === undefined ? decisionPolicyOf(app, a.toolName) : undefined;
      return {
        ...a,
        approvers: entryOf(app?.approvers, a.toolName) ?? DEFAULT_APPROVERS,
        // The app's notification rule, unless the tool's own rules name one.
        ...(app?.notify && { notify: app.notify }),
        ...entryOf(app?.approvalRules, a.toolName),
        ...(decisionPolicy && { decisionPolicy }),
        createdAt: end.now,
        expiresAt,
      };
    }),
    decisions: [],
    ...(holdUntil === undefined
      ? {}
      : { heldBy: { owner: segment.lease.owner, until: holdUntil } }),
    createdAt: end.now,
    expiresAt,
  };
  const requested = pause.approvals.map((a) =>
    approvalAudit(pause, a, 'requested', 'agent', end.now),
  );
  await ctx.store.apply(
    end.sessionId,
    savePauseTransition,
    [end, pause, requested, expiresAt + ctx.retentionMs],
    lastCommitSeen(segment),
  );
  const asked = pause.approvals.map((a) => ({
    approval_id: a.approvalId,
    tool: a.toolName,
    deciders: describeApprovers(approversOf(a)),
  }));
  ctx
    .log(segment.sessionId, segment.invocationId)
    .info(
      { app: pause.app, user_id: pause.userId, approvals: asked },
      `run paused in ${pause.app}: ${asked.map((a) => `${a.tool} waits for ${a.deciders}`).join('; ')}`,
    );
  for (const approval of pause.approvals) segment.emit({ type: 'approval-requested', approval });
  const outcome = pendingOutcome(pause);
  segment.emit({ type: 'outcome', outcome });
  return outcome;
}

async function completeRun(
  ctx: RuntimeContext,
  segment: EndingSegment,
  end: SegmentEnd,
  collector: SegmentCollector,
): Promise<RunOutcome> {
  await ctx.store.apply(
    end.sessionId,
    finishRunTransition,
    [
      end,
      {
        status: 'completed',
        result: collector.text,
        audit: [endAudit(segment, 'completed', end.now)],
      },
    ],
    lastCommitSeen(segment),
  );
  ctx.log(segment.sessionId, segment.invocationId).info('run completed');
  const outcome: RunOutcome = {
    status: 'completed',
    sessionId: segment.sessionId,
    invocationId: segment.invocationId,
    app: segment.app,
    result: collector.text,
    artifacts: collector.artifacts,
  };
  segment.emit({ type: 'outcome', outcome });
  return outcome;
}
