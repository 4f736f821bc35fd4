import { asClaimedWork } from '../../core/claimed-work.js';
import { HoldpointError, isHoldpointError, isStoreAway } from '../../core/errors.js';
import type { SessionAppend } from '../../store/store.js';
import { inRunSpan } from '../../telemetry/run-span.js';
import type { RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';
import { announceRun } from './announce-run.js';
import { driveSegment } from './drive-segment.js';
import { type EndingSegment, endSegment } from './end-segment.js';
import { type HoldEnd, holdAwaitsInPlace } from './hold-in-place.js';
import { withoutAwaits } from './linear-awaits.js';
import { prepareSegment } from './prepare-segment.js';
import { deniedCalls } from './resume-message.js';
import { SegmentCollector } from './segment-collector.js';
import { SegmentLease } from './segment-lease.js';
import type { SegmentStart } from './segment-start.js';
import type { StopCause } from './stop-cause.js';

/**
 * One run segment, from the session held to its end stored: load the session, run
 * ADK on it while the lease is kept, then store the pause, the completion or the
 * failure with everything the segment appended.
 */
export function runSegment(ctx: RuntimeContext, start: SegmentStart): Promise<RunOutcome> {
  const { app, sessionId, invocationId } = start;
  // The run holds its session from here on: a busy store lets its work wait its turn,
  // never refuses it (a run cut off here would be left interrupted).
  return asClaimedWork(() =>
    inRunSpan({ app: app.name, sessionId, invocationId }, () => runTracedSegment(ctx, start)),
  );
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
 * The segment's steps: announce it, prepare its session (`prepareSegment`), drive ADK
 * on it (`driveSegment`) while holding a lone await in place (`holdAwaitsInPlace`),
 * then store its end (`endSegment`), or stop it early if the lease, a checkpoint or a
 * tool's effect could not be kept.
 */
async function runWholeSegment(
  ctx: RuntimeContext,
  start: SegmentStart,
  answer: (outcome: RunOutcome) => void,
): Promise<RunOutcome> {
  const { app, sessionId, userId, invocationId } = start;
  const segment: EndingSegment = {
    app: app.name,
    sessionId,
    userId,
    invocationId,
    lease: start.lease,
    emit: ctx.emitter(sessionId, start.sink),
    trail: start.trail,
  };
  announceRun(segment, start.resumedFrom);
  /** Stops ADK: the lease was lost, or the segment left a tool waiting for a person. */
  const stop = new AbortController();
  const lease = new SegmentLease(ctx, sessionId, invocationId, start.lease, stop);
  /** A tool waits for a person: ADK is left behind, and nothing more it says is shown. */
  let left = false;
  const leave = () => {
    left = true;
    stop.abort();
  };
  const collector = new SegmentCollector(app.hints);
  const stopCause: StopCause = { halt: () => stop.abort() };
  let append: SessionAppend = { events: [], state: {} };
  // A segment that cannot run at all ends as any other: its failure is stored.
  let held: HoldEnd = { ended: 'ran' };
  try {
    const prepared = await prepareSegment(ctx, start, collector, stopCause);
    const drive = driveSegment({
      app,
      session: prepared.session,
      sessions: prepared.sessions,
      newMessage: prepared.newMessage,
      // A tool that awaits inline ran on a rejection: its result is its own, not a denial.
      denied: deniedCalls(withoutAwaits(start.resumedFrom)),
      signal: stop.signal,
      leave,
      emit: (event) => {
        if (!left) segment.emit(event);
      },
      streaming: start.sink !== undefined,
      collector,
      memoryService: ctx.options.memoryService,
      plugins: prepared.plugins,
      checkpoint: prepared.checkpoint,
    });
    const run = { segment, prepared, collector, lease, stopCause, drive, leave, answer };
    held = await holdAwaitsInPlace(ctx, run);
    if (held.ended === 'released') return held.paused;
    stopCause.error ??= prepared.sessions.storeFailure;
    append = prepared.sessions.takeAppended();
  } catch (error) {
    if (isStoreAway(error)) {
      throw outcomeUnknown(segment, error);
    }
    // The segment could not run at all: record the run failed, if the store lets us.
    collector.error = error instanceof Error ? error.message : String(error);
  } finally {
    lease.release();
  }
  if (held.ended === 'failed') {
    throw storeAwayAsUnknown(segment, held.error);
  }
  const stopped = earlyStop(lease, stopCause);
  if (stopped) {
    const failure = storeAwayAsUnknown(segment, stopped);
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
    throw storeAwayAsUnknown(segment, error);
  }
}

/**
 * Why the segment stops instead of storing its end: it could not keep its lease (the
 * store stopped answering), or could not store a checkpoint or a tool's effect. What
 * was stored stays, the rest is dropped and the run is left to recovery.
 */
function earlyStop(lease: SegmentLease, stopCause: StopCause): HoldpointError | undefined {
  if (lease.unconfirmed) {
    return new HoldpointError('STORE_UNAVAILABLE', 'its lease could not be renewed in time');
  }
  const { error } = stopCause;
  return isStoreAway(error) || isHoldpointError(error, 'LEASE_LOST') ? error : undefined;
}

/** `error`, or `outcomeUnknown` for a store that stopped answering. */
function storeAwayAsUnknown(segment: EndingSegment, error: unknown): unknown {
  return isStoreAway(error) ? outcomeUnknown(segment, error) : error;
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
