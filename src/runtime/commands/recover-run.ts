import { randomUUID } from 'node:crypto';
import type { AgentApp } from '../../agents/agent-app.js';
import { toolCallEffectKey } from '../../core/effect-ledger.js';
import { hashArgs } from '../../core/hash.js';
import { type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import { namesTool } from '../../core/tool-entry.js';
import type { ApprovalRequest, CarriedEdit, Lease, Pause } from '../../core/types.js';
import { approvalAudit } from '../../session/audit/audit-entries.js';
import { currentHint, latestEdit } from '../../session/decision/settlement.js';
import {
  recoverRunTransition,
  resumedPause,
  savePauseTransition,
} from '../../session/transitions/index.js';
import type { SessionSnapshot } from '../../store/store.js';
import type { RecoverRequest } from '../requests.js';
import type { RunEventSink } from '../run-event.js';
import { pendingOutcome, type RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';
import { approvedCalls, resumeMessages } from '../segment/resume-message.js';
import { runSegment } from '../segment/run-segment.js';

/** What a person sees about an approved call that may have run before the crash. */
function mayHaveRunHint(hint: string): string {
  return (
    `${hint}\n\nThis was approved and had started when the process running it stopped; ` +
    'it may already have run. Run it again?'
  );
}

/**
 * `approval` asked again about its call that may have run: as it was approved, with the
 * edit in force then carried over (not as a vote: the votes are dropped, and everyone
 * decides again), so a person sees, and approving runs, the call as edited.
 */
function askedAgain(pause: Pause, approval: ApprovalRequest): ApprovalRequest {
  const edit = latestEdit(pause, approval.approvalId);
  const carriedEdit: CarriedEdit | undefined = edit?.editedArgs && {
    approvalId: edit.approvalId,
    approved: true,
    decidedBy: edit.decidedBy,
    at: edit.at,
    ...(edit.argsHash === undefined ? {} : { argsHash: edit.argsHash }),
    editedArgs: edit.editedArgs,
    editedArgsHash: edit.editedArgsHash ?? hashArgs(edit.editedArgs),
    ...(edit.editNeedsApproval && { editNeedsApproval: true as const }),
  };
  return {
    ...approval,
    // The edit's hint, when it had one, describes the call as it stands.
    hint: mayHaveRunHint(currentHint(pause, approval)),
    mayHaveRun: true,
    ...(carriedEdit && { carriedEdit }),
  };
}

/** What the ledger says of the approved calls of the pause a recovered run was resuming. */
interface ApprovedCallsLeft {
  /** Approvals whose call started and left nothing in the ledger: it may have run. */
  uncertain: Set<string>;
  /** Ledger keys of effects that started and have no result: they run again through it. */
  locked: string[];
}

/**
 * Reads the ledger for each approved call of `pause`. A call whose effect the ledger
 * holds a result for is answered by it on the re-run. A call whose effect is locked
 * and has no result runs again through the ledger, under the same key. A call that
 * started and left nothing may have had its effect and nothing says so: unless the
 * app declares the tool idempotent, a person is asked again.
 */
async function approvedCallsLeft(
  ctx: RuntimeContext,
  app: AgentApp,
  pause: Pause,
): Promise<ApprovedCallsLeft> {
  const approved = approvedCalls(pause);
  const left: ApprovedCallsLeft = { uncertain: new Set(), locked: [] };
  for (const approval of pause.approvals) {
    if (!approved.has(approval.toolCallId)) continue;
    const key = toolCallEffectKey(pause.sessionId, approval.toolCallId);
    const effect = await ctx.store.effects.inspect(key);
    const idempotent = app.idempotentTools
      ? namesTool(app.idempotentTools, approval.toolName)
      : false;
    if (effect.state === 'locked') left.locked.push(key);
    // A tool that awaits inline is entered again (its effects in `once()`), never asked about.
    else if (
      effect.started &&
      effect.state === 'none' &&
      !idempotent &&
      approval.awaitIndex === undefined
    ) {
      left.uncertain.add(approval.approvalId);
    }
  }
  return left;
}

/**
 * Resumes a run whose process stopped while it worked (its lease lapsed), by its
 * invocation id: the run takes its session again and goes on from what was stored
 * last — its last checkpoint (a workflow step), else the user's message or the
 * decisions of the pause it was resuming. Tool
 * calls answered from the effect ledger are not run again; an approved call that may
 * have run and left no trace becomes a new question to a person instead. Only the
 * session's owner or an admin resumes it.
 */
export async function recoverRun(
  ctx: RuntimeContext,
  request: RecoverRequest,
  by: Principal,
  sink?: RunEventSink,
): Promise<RunOutcome> {
  const { invocationId } = request;
  const actor = by.id;
  const sessionId = await ctx.requireRunSession(invocationId);
  const before = await ctx.requireSnapshot(sessionId);
  requireOwnerOrAdmin(by, before.meta.userId, 'resume this run');
  // Refused before anything is recorded: a run this instance cannot drive is not taken.
  const app = ctx.requireApp(before.meta.app);
  ctx.requireUnchangedApp(app, before.run);
  const now = ctx.clock.now();
  const lease = ctx.newLease(now);
  const taken = await ctx.store.apply(sessionId, recoverRunTransition, [
    invocationId,
    lease,
    actor,
    now,
  ]);
  ctx.log(sessionId, invocationId).warn({ recovered_by: actor }, 'interrupted run recovered');
  const run = taken.run as NonNullable<SessionSnapshot['run']>;
  const pause = resumedPause(taken, invocationId);
  // Read once the run is ours, so nothing the stopped segment stored can come after.
  // Past a checkpoint the approved calls had run (none is checkpointed while one
  // runs), and their results are stored with it.
  const { uncertain, locked } =
    pause && !run.checkpointed
      ? await approvedCallsLeft(ctx, app, pause)
      : { uncertain: new Set<string>(), locked: [] };
  // Locks the stopped process left without a result are released.
  for (const key of locked) await ctx.store.effects.takeOver(key);
  if (pause && uncertain.size > 0) {
    return askAgain(ctx, { sessionId, invocationId, lease, pause, uncertain, sink, app });
  }
  return runSegment(ctx, {
    app,
    sessionId,
    userId: taken.meta.userId,
    invocationId,
    lease,
    messages: run.checkpointed
      ? undefined
      : pause
        ? resumeMessages(pause)
        : [{ role: 'user', parts: [{ text: run.query }] }],
    resumedFrom: pause,
    sink,
  });
}

interface AskAgain {
  app: AgentApp;
  sessionId: string;
  invocationId: string;
  lease: Lease;
  /** The pause the run was resuming. */
  pause: Pause;
  /** Its approvals that may have run. */
  uncertain: Set<string>;
  sink?: RunEventSink;
}

/**
 * Pauses the recovered run again, asking a person about each approved call that may
 * have run (as edited, when an edit was in force); the other decisions of the pause
 * carry over, so deciding these resumes the run as the first resume would have.
 */
async function askAgain(ctx: RuntimeContext, ask: AskAgain): Promise<RunOutcome> {
  const { pause, uncertain, sessionId, invocationId } = ask;
  const now = ctx.clock.now();
  const expiresAt = now + ctx.pauseTtlMs;
  const next: Pause = {
    ...pause,
    pauseId: `pause-${randomUUID()}`,
    status: 'pending',
    approvals: pause.approvals.map((a) =>
      uncertain.has(a.approvalId)
        ? { ...askedAgain(pause, a), createdAt: now, expiresAt }
        : { ...a, createdAt: now, expiresAt },
    ),
    decisions: pause.decisions.filter((d) => !uncertain.has(d.approvalId)),
    supersededRequests: [
      ...(pause.supersededRequests ?? []),
      ...pause.decisions.flatMap((d) =>
        uncertain.has(d.approvalId) && d.requestId ? [d.requestId] : [],
      ),
    ],
    createdAt: now,
    expiresAt,
  };
  const asked = next.approvals.filter((a) => uncertain.has(a.approvalId));
  const audit = asked.map((a) => ({
    ...approvalAudit(next, a, 'requested', 'system', now, {
      ...(a.carriedEdit && { editedArgsHash: a.carriedEdit.editedArgsHash }),
    }),
    reason: 'It may have run before its process stopped.',
  }));
  await ctx.store.apply(sessionId, savePauseTransition, [
    {
      sessionId,
      invocationId,
      lease: ask.lease,
      append: { events: [], state: {} },
      executedCallIds: [],
      now,
    },
    next,
    audit,
    expiresAt + ctx.retentionMs,
  ]);
  ctx
    .log(sessionId, invocationId)
    .warn(
      { approvals: asked.map((a) => a.approvalId) },
      'asked again about calls that may have run',
    );
  const emit = ctx.emitter(sessionId, ask.sink);
  emit({ type: 'run-started', sessionId, invocationId, app: ask.app.name, resumed: true });
  for (const approval of asked) emit({ type: 'approval-requested', approval });
  const outcome = pendingOutcome(next);
  emit({ type: 'outcome', outcome });
  return outcome;
}
