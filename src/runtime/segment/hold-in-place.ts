import type { ApprovalAnswer } from '../../agents/wait-for-approval.js';
import type { Pause } from '../../core/types.js';
import { settlingDecision } from '../../session/decision/settlement.js';
import type { RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';
import { announceRun } from './announce-run.js';
import { type EndingSegment, endSegment } from './end-segment.js';
import { type AskedAwait, answerEvent } from './linear-awaits.js';
import { PauseHold } from './pause-hold.js';
import type { PreparedSegment } from './prepare-segment.js';
import type { SegmentCollector } from './segment-collector.js';
import type { SegmentLease } from './segment-lease.js';
import type { StopCause } from './stop-cause.js';

/** A segment whose ADK part runs (`drive`), and what holding its awaits in place takes. */
export interface DrivenSegment {
  segment: EndingSegment;
  prepared: PreparedSegment;
  collector: SegmentCollector;
  lease: SegmentLease;
  stopCause: StopCause;
  /** ADK's part of the segment, until it ends. */
  drive: Promise<void>;
  /** Stops ADK and shows nothing more it says: a tool is left waiting for a person. */
  leave: () => void;
  /** Tells the caller of the pause held in place, while the segment goes on waiting. */
  answer: (outcome: RunOutcome) => void;
}

/**
 * How the segment's ADK part ended: `ran` to its end or left behind (the segment ends
 * as any other), its held pause `released` to wait stored (the segment is over: the
 * pause is resumed as any other), or `failed` to store the held pause.
 */
export type HoldEnd =
  | { ended: 'ran' }
  | { ended: 'released'; paused: RunOutcome }
  | { ended: 'failed'; error: unknown };

/**
 * Waits for ADK's part of the segment to end. A tool that awaits a person with no answer
 * stored (`waitForApproval`) stops it: its request is appended, and a lone await is held
 * in place — its pause stored and told to the caller, and if its decision hands the
 * session back before the tool's approval timeout, the await is answered and ADK goes
 * on in the same segment. Any other await leaves ADK behind: the segment ends as a pause.
 */
export async function holdAwaitsInPlace(ctx: RuntimeContext, run: DrivenSegment): Promise<HoldEnd> {
  const { segment, collector, lease, stopCause, leave } = run;
  const { session, sessions, awaits } = run.prepared;
  const { sessionId, invocationId } = segment;
  for (;;) {
    // ADK runs until it ends, or until a tool awaits a person with no answer stored.
    const asked = await Promise.race([
      run.drive.then(() => undefined),
      awaits.whenAsked().then(() => awaits.takeAsked()),
    ]);
    if (!asked) return { ended: 'ran' };
    for (const { event, session: toolSession } of asked) {
      collector.add(await sessions.appendEvent({ session: toolSession, event }));
    }
    stopCause.error ??= sessions.storeFailure;
    const until = stopCause.error ? undefined : holdUntil(ctx, segment, collector, asked);
    if (until === undefined) {
      // The tool call ends as a pause (entered again on resume, its answers replayed),
      // or the segment stops as its end decides.
      leave();
      return { ended: 'ran' };
    }
    // Hold the tool's await: store the pause first (the caller learns of it then),
    // and go on in place if its decision comes before `until`.
    const hold = await PauseHold.open(ctx, sessionId).catch(() => undefined);
    if (!hold) {
      // Nothing could wake it: the tool call ends as a pause, as above.
      leave();
      return { ended: 'ran' };
    }
    lease.retire();
    let paused: RunOutcome;
    try {
      paused = await endSegment(ctx, segment, collector, sessions.takeAppended(), until);
    } catch (error) {
      // endSegment told the streams; the caller gets the error as of any segment's end.
      leave();
      await hold.close();
      return { ended: 'failed', error };
    }
    run.answer(paused);
    segment.emit = ctx.emitter(sessionId);
    const settled = await hold.settle(ctx, sessionId, invocationId, segment.lease.owner, until);
    if (settled.state !== 'handed') {
      // Nothing waits in memory: the stored pause is resumed as any other.
      leave();
      ctx.log(sessionId, invocationId).info('held pause released');
      return { ended: 'released', paused };
    }
    lease.takeBack(settled.lease);
    collector.startOver();
    announceRun(segment, settled.pause);
    for (const waiting of asked) {
      const given = heldAnswer(settled.pause, waiting.approvalId);
      const event = answerEvent(invocationId, waiting.approvalId, given);
      await sessions.appendEvent({ session, event });
      waiting.answer(given);
    }
  }
}

/**
 * Until when the segment waits in place for the decision on the await just asked: the
 * tool's approval timeout. Only a lone await is held (the model's only call, in no
 * parallel branch, with nothing else asked): anything else stops the segment at once.
 */
function holdUntil(
  ctx: RuntimeContext,
  segment: EndingSegment,
  collector: SegmentCollector,
  asked: AskedAwait[],
): number | undefined {
  const [only] = asked;
  if (asked.length !== 1 || !only?.alone || collector.approvals.length !== 1) return undefined;
  return ctx.clock.now() + ctx.approvalPolicy(segment.app, only.toolName).timeoutSeconds * 1000;
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
