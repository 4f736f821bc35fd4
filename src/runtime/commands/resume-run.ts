import { randomUUID } from 'node:crypto';
import type { AgentApp } from '../../agents/agent-app.js';
import { asClaimedWork } from '../../core/claimed-work.js';
import { approvalNotFound, withRun } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { Decision, Lease, Pause } from '../../core/types.js';
import { idText, validate } from '../../core/validate.js';
import { mayNeedDelegators } from '../../session/decision/may-decide.js';
import { settledDecisions } from '../../session/decision/settlement.js';
import { decideTransition, type RichDecisions } from '../../session/transitions/index.js';
import { holdChannel } from '../../store/run-relay.js';
import type { DecisionBatch, SessionTrail } from '../../store/store.js';
import { tagSession } from '../../telemetry/session-attributes.js';
import { delegatorsOf } from '../queries/delegators.js';
import { runState } from '../queries/run-state.js';
import type { CheckedDecisionInput, CheckedResumeRequest } from '../requests.js';
import type { RunEventSink } from '../run-event.js';
import { pendingOutcome, type RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';
import { resumeMessages } from '../segment/resume-message.js';
import { runSegment } from '../segment/run-segment.js';
import { HeldRunFollower } from './follow-held-run.js';
import { storeGrants } from './store-grants.js';
import { toolRulesOf } from './tool-rules.js';

/**
 * Records decisions on a session's pause. The one caller whose decision completes
 * the pause holds the session and resumes the same run (same invocation id);
 * everyone else gets 409. Nothing of the resumed run happens before that decision (and
 * the session it takes) is stored.
 */
export async function resumeRun(
  ctx: RuntimeContext,
  request: CheckedResumeRequest,
  by: Principal,
  sink?: RunEventSink,
): Promise<RunOutcome> {
  const { sessionId, pauseId, approved, reason, decisions, requestId, channel } = request;
  const decidedBy = by.id;
  tagSession(sessionId);
  // Refused before anything is recorded: a run this instance cannot drive is not taken.
  const snapshot = await ctx.requireSnapshot(sessionId);
  const app = ctx.requireApp(snapshot.meta.app);
  if (snapshot.pause?.status === 'pending') ctx.requireUnchangedApp(app, snapshot.run);
  const now = ctx.clock.now();
  const base = { decidedBy, at: now, requestId };
  const lease = ctx.newLease(now);
  // Whoever is out of office and left their approvals to `by`: read before deciding, when
  // `by` may not decide some waiting approval themselves (otherwise no delegation matters).
  const delegators = mayNeedDelegators(snapshot.pause, by, snapshot.run?.userId)
    ? await delegatorsOf(ctx, by, now)
    : [];
  // Every edit, answer and grant of the batch is checked before any of it is recorded, on
  // the pause the decision commits on, once the caller is known to decide on it (the
  // others learn nothing of its tools' policies from a refusal).
  const rich: RichDecisions | undefined = decisions && {
    asked: decisions,
    tools: toolRulesOf(app),
  };
  const batch: DecisionBatch = decisions
    ? {
        decisions: decisions.map(({ grant, ...d }) => ({
          channel,
          ...d,
          ...base,
          ...(grant && {
            grant: {
              grantId: `grt_${randomUUID()}`,
              scope: grant.scope,
              expiresAt: now + grant.hours * 3_600_000,
              ...(grant.match && { match: grant.match }),
            },
          }),
        })),
        pauseId,
      }
    : { all: { approved: approved as boolean, reason, channel, ...base }, pauseId };
  // A segment waits in place for this pause (a tool's `waitForApproval`): the decision
  // that settles it hands the run to that segment, whose events are then followed here.
  const follower = snapshot.pause?.heldBy
    ? await HeldRunFollower.listen(ctx, sessionId, sink)
    : undefined;
  // The snapshot read above is the decision's first try: the session is not read again,
  // nor by the segment the decision resumes (it goes on from what the decision stored).
  const trail: SessionTrail = { snapshot };
  const { outcome, pause } = await ctx.store
    .apply(sessionId, decideTransition, [batch, now, lease, by, delegators, rich], trail)
    .catch(async (error: unknown) => {
      await follower?.stop();
      throw withRun(error, snapshot.meta.invocationId);
    });
  // Once the decisions are stored, before the run goes on: its calls may use them. The
  // decision may have taken the run: a busy store lets this wait, never refuses it.
  await asClaimedWork(() => storeGrants(ctx, snapshot.meta, pause, batch, requestId));
  if (outcome === 'handed') {
    const owner = snapshot.pause?.heldBy?.owner ?? '';
    if (follower) return follower.outcome(ctx, sessionId, pause.invocationId, owner);
    ctx.store.relay.publish(holdChannel(sessionId), { type: 'handed' });
    return runState(ctx, sessionId, pause.invocationId);
  }
  await follower?.stop();
  if (outcome === 'recorded') return runState(ctx, sessionId, pause.invocationId);
  const made = pause.decisions.filter((d) => d.decidedBy === decidedBy && d.at === now);
  ctx.log(sessionId, pause.invocationId).info(
    {
      app: pause.app,
      decided_by: decidedBy,
      channel: channel ?? 'api',
      decided: made.map((d) => ({ approval_id: d.approvalId, approved: d.approved })),
      outcome,
    },
    // "decisions recorded" first, as operators' searches (and the crash tests) look for it.
    `decisions recorded: ${decidedBy} ${describeDecisions(pause, made)} in ${pause.app} (${
      channel ?? 'api'
    }); ${outcome === 'pending' ? 'the run still waits' : 'the run resumes'}`,
  );
  if (outcome === 'pending') {
    const emit = ctx.emitter(sessionId, sink);
    const pending = pendingOutcome(pause);
    emit({ type: 'decided', approvals: pause.approvals, decisions: settledDecisions(pause) });
    emit({ type: 'outcome', outcome: pending });
    return pending;
  }
  return resumeDecidedRun(ctx, app, pause, lease, sink, trail);
}

/**
 * Drives the run of `pause` on from its settled decisions, under `lease`: the lease the
 * decision that completed the pause took the session with (a person's, or the SLA
 * sweep's deadline denial); `trail`, the session as that decision stored it, when known.
 */
export function resumeDecidedRun(
  ctx: RuntimeContext,
  app: AgentApp,
  pause: Pause,
  lease: Lease,
  sink?: RunEventSink,
  trail?: SessionTrail,
): Promise<RunOutcome> {
  return runSegment(ctx, {
    app,
    sessionId: pause.sessionId,
    userId: pause.userId,
    invocationId: pause.invocationId,
    lease,
    messages: resumeMessages(pause),
    resumedFrom: pause,
    sink,
    trail,
  });
}

/**
 * Records one decision by approval id alone (the session is looked up) and, when
 * it completes the pause, resumes the run like `resumeRun`.
 */
export async function decideApproval(
  ctx: RuntimeContext,
  decision: CheckedDecisionInput,
  by: Principal,
  sink?: RunEventSink,
  requestId?: string,
): Promise<RunOutcome> {
  const sessionId = await ctx.store.findApproval(decision.approvalId);
  if (!sessionId) throw approvalNotFound(decision.approvalId);
  const named = requestId === undefined ? {} : { requestId: validate(idText, requestId) };
  return resumeRun(ctx, { sessionId, decisions: [decision], ...named }, by, sink);
}

/** What a person decided, in words: "approved pay", "denied pay, approved mail". */
function describeDecisions(pause: Pause, made: readonly Decision[]): string {
  return made
    .map((decision) => {
      const tool = pause.approvals.find((a) => a.approvalId === decision.approvalId)?.toolName;
      const how =
        decision.response !== undefined
          ? 'answered for'
          : decision.editedArgs !== undefined
            ? 'edited and approved'
            : decision.approved
              ? 'approved'
              : 'denied';
      return `${how} ${tool ?? decision.approvalId}`;
    })
    .join(', ');
}
