import { createEvent, type Session } from '@google/adk';
import type { AgentApp } from '../../agents/agent-app.js';
import type { ApprovalAnswer } from '../../agents/wait-for-approval.js';
import { LINEAR_APPROVALS } from '../../agents/wait-for-approval.js';
import { toolCallEffectKey } from '../../core/effect-ledger.js';
import {
  HoldpointError,
  isHoldpointError,
  isStoreAway,
  sessionNotFound,
} from '../../core/errors.js';
import { settledDecisions, settlingDecision } from '../../core/settlement.js';
import type { Lease, Pause } from '../../core/types.js';
import type { SessionAppend } from '../../store/store.js';
import { inRunSpan } from '../../telemetry/run-span.js';
import type { RunEventSink } from '../run-event.js';
import type { RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';
import { ApprovedCallsStarted } from './approved-calls-started.js';
import { answersByBranch } from './branch-answers.js';
import { closingEvent } from './closing-event.js';
import { driveSegment } from './drive-segment.js';
import { type EndingSegment, endSegment } from './end-segment.js';
import { LeaseKeeper } from './lease-keeper.js';
import { type AskedAwait, answerEvent, LinearAwaits, withoutAwaits } from './linear-awaits.js';
import { openToolCalls } from './open-tool-calls.js';
import { PauseHold } from './pause-hold.js';
import { approvedCalls, deniedCalls, type UserMessages } from './resume-message.js';
import { SegmentCollector } from './segment-collector.js';
import { SegmentSessions } from './segment-sessions.js';

/** A segment about to run: its session is already held under `lease`. */
export interface SegmentStart {
  app: AgentApp;
  sessionId: string;
  userId: string;
  invocationId: string;
  lease: Lease;
  /**
   * What the user sends, in order: all but the last are stored before ADK runs on the
   * last (answers to calls in parallel branches: all, each in its branch, and ADK goes
   * on from them). None when a recovered run goes on from its last checkpoint.
   */
  messages?: UserMessages;
  /** The pause this segment resumes; a new run instead closes what earlier pauses left open. */
  resumedFrom?: Pause;
  sink?: RunEventSink;
}

const NOT_RUN = 'The approval request ended without a decision; the tool did not run.';

/**
 * One run segment, from the session held to its end stored: load the session, run
 * ADK on it while the lease is kept, then store the pause, the completion or the
 * failure with everything the segment appended.
 */
export function runSegment(ctx: RuntimeContext, start: SegmentStart): Promise<RunOutcome> {
  const { app, sessionId, invocationId } = start;
  return inRunSpan({ app: app.name, sessionId, invocationId }, () => runTracedSegment(ctx, start));
}

/**
 * The segment's outcome as its caller gets it: its end, or the first pause it holds
 * in place (a tool's `waitForApproval`), which the caller learns of as of any pause
 * while the segment goes on waiting for the decision; what it does after that reaches
 * whoever resumes the run (and every stream) through the relay.
 */
function runTracedSegment(ctx: RuntimeContext, start: SegmentStart): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const answer = (outcome: RunOutcome) => {
      answered = true;
      resolve(outcome);
    };
    runWholeSegment(ctx, start, answer).then(answer, (error: unknown) => {
      if (!answered) reject(error);
      else ctx.log(start.sessionId, start.invocationId).warn({ err: error }, 'held run failed');
    });
  });
}

/**
 * Keeps `lease` while the segment works; stops the segment (`stop`) if it is lost,
 * unless the keeper was `retired` first (the segment stored a pause it holds in place,
 * and a renewal still under way meets the paused session).
 */
function keepLease(
  ctx: RuntimeContext,
  start: SegmentStart,
  lease: Lease,
  stop: AbortController,
  retired: WeakSet<LeaseKeeper>,
): LeaseKeeper {
  const keeper = new LeaseKeeper(ctx, start.sessionId, start.invocationId, lease);
  keeper.signal.addEventListener(
    'abort',
    () => {
      if (!retired.has(keeper)) stop.abort();
    },
    { once: true },
  );
  return keeper;
}

/**
 * Until when the segment waits in place for the decision on the await just asked: the
 * tool's approval timeout. Only a lone await is held (the model's only call, in no
 * parallel branch, with nothing else asked): anything else stops the segment at once.
 */
function holdUntil(
  ctx: RuntimeContext,
  app: AgentApp,
  collector: SegmentCollector,
  asked: AskedAwait[],
): number | undefined {
  const [only] = asked;
  if (asked.length !== 1 || !only?.alone || collector.approvals.length !== 1) return undefined;
  return ctx.clock.now() + ctx.approvalPolicy(app.name, only.toolName).timeoutSeconds * 1000;
}

/** The answer a tool's await gets from the decision that settled it. */
function heldAnswer(pause: Pause, approvalId: string): ApprovalAnswer {
  const approval = pause.approvals.find((a) => a.approvalId === approvalId);
  const decision = approval && settlingDecision(pause, approval);
  const answer: ApprovalAnswer = { approved: decision?.approved === true };
  if (decision?.reason !== undefined) answer.reason = decision.reason;
  if (decision?.payload !== undefined) answer.payload = decision.payload;
  if (decision) answer.decidedBy = decision.decidedBy;
  return answer;
}

async function runWholeSegment(
  ctx: RuntimeContext,
  start: SegmentStart,
  answer: (outcome: RunOutcome) => void,
): Promise<RunOutcome> {
  const { app, sessionId, userId, invocationId, lease, resumedFrom } = start;
  const segment: EndingSegment = {
    app: app.name,
    sessionId,
    userId,
    invocationId,
    lease,
    emit: ctx.emitter(sessionId, start.sink),
  };
  segment.emit({
    type: 'run-started',
    sessionId,
    invocationId,
    app: app.name,
    resumed: !!resumedFrom,
  });
  if (resumedFrom) {
    segment.emit({
      type: 'decided',
      approvals: resumedFrom.approvals,
      decisions: settledDecisions(resumedFrom),
    });
  }
  /** Stops ADK: the lease was lost, or the segment left a tool waiting for a person. */
  const stop = new AbortController();
  const retired = new WeakSet<LeaseKeeper>();
  let keeper = keepLease(ctx, start, lease, stop, retired);
  /** A tool waits for a person: ADK is left behind, and nothing more it says is shown. */
  let left = false;
  const leave = () => {
    left = true;
    stop.abort();
  };
  const collector = new SegmentCollector(app.hints);
  const approved = start.messages ? approvedCalls(resumedFrom) : new Set<string>();
  // A tool that awaits inline was entered long before; it is entered again, not asked about.
  const starting = start.messages ? approvedCalls(withoutAwaits(resumedFrom)) : new Set<string>();
  let append: SessionAppend = { events: [], state: {} };
  /** Why the segment stopped early: a checkpoint, or a tool's effect ledger, could not be stored. */
  let stopCause: unknown;
  /** Why the pause of an await held in place could not be stored. */
  let holdFailure: { error: unknown } | undefined;
  try {
    const session = await ctx.store.loadSession(sessionId, app.name, userId);
    if (!session) {
      throw sessionNotFound(sessionId);
    }
    const awaits = new LinearAwaits(session);
    /** Stores what the segment appended so far; the segment keeps its session. */
    const checkpoint = async () => {
      // Not while an approved call still runs (a parallel branch can checkpoint
      // meanwhile): past a checkpoint, a recovery takes every approved call as done.
      if ([...approved].some((id) => !collector.hasAnswered(id))) return;
      const append = sessions.takeAppended();
      const executedCallIds = collector.takeExecuted();
      if (append.events.length === 0 && executedCallIds.length === 0) return;
      const end = { sessionId, invocationId, lease, now: ctx.clock.now() };
      try {
        await ctx.store.checkpoint({ ...end, append, executedCallIds });
      } catch (error) {
        stopCause = error;
        throw error;
      }
    };
    const sessions = new SegmentSessions(session, ctx.store.effects, invocationId, checkpoint);
    sessions[LINEAR_APPROVALS] = awaits;
    if (!start.messages) {
      // Going on from a checkpoint: what earlier runs left open was answered before it.
      await takeOverOpenCalls(ctx, session, invocationId);
    } else if (!resumedFrom) {
      const closing = await closingEvent(session.events, invocationId, NOT_RUN, (callId) =>
        ctx.store.effects.inspect(toolCallEffectKey(sessionId, callId)),
      );
      const closings = closing?.content
        ? (answersByBranch(session.events, [closing.content], invocationId) ?? [closing])
        : [];
      for (const event of closings) await sessions.appendEvent({ session, event });
    }
    // A tool that awaits inline is entered again, not asked about: it is not marked started.
    const startedMarks = new ApprovedCallsStarted(starting, async (callId) => {
      try {
        await ctx.store.effects.markStarted(toolCallEffectKey(sessionId, callId));
      } catch (error) {
        stopCause ??= error;
        throw error;
      }
    });
    const messages = start.messages ?? [];
    // Answers to calls in parallel branches are stored first, each in its branch, and
    // ADK goes on from them; otherwise it runs on the last message.
    const branched = answersByBranch(session.events, messages, invocationId);
    const stored =
      branched ??
      messages
        .slice(0, -1)
        .map((content) => createEvent({ invocationId, author: 'user', content }));
    for (const event of stored) await sessions.appendEvent({ session, event });
    const drive = driveSegment({
      app,
      session,
      sessions,
      newMessage: branched ? undefined : messages.at(-1),
      // A tool that awaits inline ran on a rejection: its result is its own, not a denial.
      denied: deniedCalls(withoutAwaits(resumedFrom)),
      signal: stop.signal,
      emit: (event) => {
        if (!left) segment.emit(event);
      },
      streaming: start.sink !== undefined,
      collector,
      memoryService: ctx.options.memoryService,
      // Each approved call is marked started just before its tool runs (see
      // ApprovedCallsStarted); a mark the store cannot take stops the segment.
      plugins: starting.size === 0 ? [] : [startedMarks],
      checkpoint,
    });
    for (;;) {
      // ADK runs until it ends, or until a tool awaits a person with no answer stored.
      const asked = await Promise.race([
        drive.then(() => undefined),
        awaits.whenAsked().then(() => awaits.takeAsked()),
      ]);
      if (!asked) break;
      for (const { event } of asked) collector.add(await sessions.appendEvent({ session, event }));
      stopCause ??= sessions.storeFailure;
      const until = stopCause ? undefined : holdUntil(ctx, app, collector, asked);
      if (until === undefined) {
        // The tool call ends as a pause (entered again on resume, its answers replayed),
        // or the segment stops as below.
        leave();
        break;
      }
      // Hold the tool's await: store the pause first (the caller learns of it then),
      // and go on in place if its decision comes before `until`.
      const hold = await PauseHold.open(ctx, sessionId).catch(() => undefined);
      if (!hold) {
        // Nothing could wake it: the tool call ends as a pause, as above.
        leave();
        break;
      }
      keeper.stop();
      retired.add(keeper);
      let paused: RunOutcome;
      try {
        paused = await endSegment(ctx, segment, collector, sessions.takeAppended(), until);
      } catch (error) {
        // endSegment told the streams; the caller gets the error as of any segment's end.
        leave();
        await hold.close();
        holdFailure = { error };
        break;
      }
      answer(paused);
      segment.emit = ctx.emitter(sessionId);
      const settled = await hold.settle(ctx, sessionId, invocationId, lease.owner, until);
      if (settled.state !== 'handed') {
        // Nothing waits in memory: the stored pause is resumed as any other.
        leave();
        ctx.log(sessionId, invocationId).info('held pause released');
        return paused;
      }
      keeper = keepLease(ctx, start, settled.lease, stop, retired);
      collector.startOver();
      segment.emit({ type: 'run-started', sessionId, invocationId, app: app.name, resumed: true });
      segment.emit({
        type: 'decided',
        approvals: settled.pause.approvals,
        decisions: settledDecisions(settled.pause),
      });
      for (const waiting of asked) {
        const given = heldAnswer(settled.pause, waiting.approvalId);
        const event = answerEvent(invocationId, waiting.approvalId, given);
        await sessions.appendEvent({ session, event });
        waiting.answer(given);
      }
    }
    stopCause ??= sessions.storeFailure;
    append = sessions.takeAppended();
  } catch (error) {
    if (isStoreAway(error)) {
      throw outcomeUnknown(segment, error);
    }
    // The segment could not run at all: record the run failed, if the store lets us.
    collector.error = error instanceof Error ? error.message : String(error);
  } finally {
    keeper.stop();
  }
  if (holdFailure) {
    const { error } = holdFailure;
    throw isStoreAway(error) ? outcomeUnknown(segment, error) : error;
  }
  // A segment that could not keep its lease (the store stopped answering), or could not
  // store a checkpoint or a tool's effect, stops: what was stored stays, the rest is
  // dropped and the run is left to recovery.
  const unconfirmed =
    keeper.stopped === 'unconfirmed'
      ? new HoldpointError('STORE_UNAVAILABLE', 'its lease could not be renewed in time')
      : undefined;
  if (unconfirmed || isStoreAway(stopCause) || isHoldpointError(stopCause, 'LEASE_LOST')) {
    const cause = unconfirmed ?? stopCause;
    const failure = isStoreAway(cause) ? outcomeUnknown(segment, cause) : cause;
    segment.emit({
      type: 'failed',
      sessionId,
      invocationId,
      code: isHoldpointError(failure) ? failure.code : 'INTERNAL',
      message: failure instanceof Error ? failure.message : String(failure),
    });
    throw failure;
  }
  try {
    return await endSegment(ctx, segment, collector, append);
  } catch (error) {
    if (isStoreAway(error)) {
      throw outcomeUnknown(segment, error);
    }
    throw error;
  }
}

/**
 * A run going on from its last checkpoint runs again the tool calls its stopped segment
 * left open, under the same call ids: a claim their `once()` left in the effect ledger
 * without a result is released, so the effect runs again under the same key (a result
 * stored is kept, and answers the call).
 */
async function takeOverOpenCalls(
  ctx: RuntimeContext,
  session: Session,
  invocationId: string,
): Promise<void> {
  const open = openToolCalls(session.events.filter((e) => e.invocationId === invocationId));
  for (const call of open) {
    await ctx.store.effects.takeOver(toolCallEffectKey(session.id, call.id));
  }
}

/**
 * The answer when the store stopped answering after the run took its session (a
 * decision, a new run): something was stored, and how the run ended is unknown. The
 * run is left as it stands in the store; once its lease lapses it is interrupted, and
 * resumed by its invocation id (or by `recover: auto`).
 */
function outcomeUnknown(segment: EndingSegment, cause: HoldpointError): HoldpointError {
  return new HoldpointError(
    'OUTCOME_UNKNOWN',
    `The run took its session, but the store stopped answering before its outcome was stored ` +
      `(${cause.message}). Its state is at GET /api/runs/${segment.invocationId}; once its lease ` +
      'lapses it can be resumed by its invocation id.',
    { session_id: segment.sessionId, invocation_id: segment.invocationId },
  );
}
