import { type BasePlugin, createEvent, type Event, type Session } from '@google/adk';
import type { Content, Part } from '@google/genai';
import { DecisionAnswers } from '../../agents/decision-answers.js';
import { NamedToolGate } from '../../agents/named-tool-gate.js';
import { LINEAR_APPROVALS } from '../../agents/wait-for-approval.js';
import { toolCallEffectKey } from '../../core/effect-ledger.js';
import { sessionNotFound } from '../../core/errors.js';
import { checkpointTransition } from '../../session/transitions/index.js';
import type { RuntimeContext } from '../runtime-context.js';
import { ApprovedCallsStarted } from './approved-calls-started.js';
import { answersByBranch } from './branch-answers.js';
import { closingEvent } from './closing-event.js';
import { LinearAwaits, withoutAwaits } from './linear-awaits.js';
import { openToolCalls } from './open-tool-calls.js';
import { approvedCalls, callAnswers } from './resume-message.js';
import type { SegmentCollector } from './segment-collector.js';
import { segmentGrants } from './segment-grants.js';
import { SegmentSessions } from './segment-sessions.js';
import type { SegmentStart } from './segment-start.js';
import type { StopCause } from './stop-cause.js';

/** A segment's session, ready for ADK to run on. */
export interface PreparedSegment {
  session: Session;
  /** ADK's session service for the segment: it keeps what the segment appends. */
  sessions: SegmentSessions;
  /** The tools' `waitForApproval` awaits asked in this segment. */
  awaits: LinearAwaits;
  /** Stores what the segment appended so far: a tool-level checkpoint. */
  checkpoint: () => Promise<void>;
  /** The message ADK runs on; none when it goes on from what is stored (a checkpoint, answers in branches). */
  newMessage?: Content;
  /** The segment's Runner plugins. */
  plugins: BasePlugin[];
}

const NOT_RUN = 'The approval request ended without a decision; the tool did not run.';

/**
 * Loads the segment's session and readies it for ADK: what earlier runs left open is
 * taken over (going on from a checkpoint) or closed (a new run), and the user's messages
 * are appended but for the one ADK runs on. A failure to store a checkpoint or a start
 * mark is recorded in `stopCause`, and the segment stops.
 */
export async function prepareSegment(
  ctx: RuntimeContext,
  start: SegmentStart,
  collector: SegmentCollector,
  stopCause: StopCause,
): Promise<PreparedSegment> {
  const { app, sessionId, userId, invocationId, lease, resumedFrom } = start;
  const approved = start.messages ? approvedCalls(resumedFrom) : new Set<string>();
  // A tool that awaits inline was entered long before; it is entered again, not asked about.
  const starting = start.messages ? approvedCalls(withoutAwaits(resumedFrom)) : new Set<string>();
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
      await ctx.store.apply(
        sessionId,
        checkpointTransition,
        [{ ...end, append, executedCallIds }],
        start.trail,
      );
    } catch (error) {
      stopCause.error = error;
      throw error;
    }
  };
  // The resumed pause's edits, answers and reasons, applied as ADK runs each call.
  const answers = new DecisionAnswers(callAnswers(resumedFrom));
  const sessions = new SegmentSessions(
    session,
    ctx.store.effects,
    invocationId,
    checkpoint,
    answers.ranWith,
  );
  sessions[LINEAR_APPROVALS] = awaits;
  if (!start.messages) {
    // Going on from a checkpoint: what earlier runs left open was answered before it.
    await takeOverOpenCalls(
      ctx,
      [...session.events, ...sessions.storedAgentToolEvents()],
      session.id,
      invocationId,
    );
  } else if (!resumedFrom) {
    await closeOpenCalls(ctx, sessions, session, sessionId, invocationId);
  }
  // A tool that awaits inline is entered again, not asked about: it is not marked started.
  const startedMarks = new ApprovedCallsStarted(starting, async (callId) => {
    try {
      await ctx.store.effects.markStarted(toolCallEffectKey(sessionId, callId));
    } catch (error) {
      stopCause.error ??= error;
      throw error;
    }
  });
  const named = new Set(Object.keys(app.approvalPolicies));
  const granted = segmentGrants(ctx, start, stopCause, named);
  const grantedCalls = granted ? [granted] : [];
  // Answers to calls an AgentTool's run made are stored in that run's session; the run
  // then goes on from what is stored, and that AgentTool's call enters its run again.
  const { own: messages, toAgentToolRuns } = routeAnswers(sessions, start.messages ?? []);
  for (const { session: agentToolSession, content } of toAgentToolRuns) {
    const event = createEvent({ invocationId, author: 'user', content });
    await sessions.appendEvent({ session: agentToolSession, event });
  }
  // Answers to calls in parallel branches are stored first, each in its branch, and
  // ADK goes on from them; otherwise it runs on the last message.
  const branched = answersByBranch(session.events, messages, invocationId);
  const goesOn = branched !== undefined || toAgentToolRuns.length > 0;
  const stored =
    branched ??
    (goesOn ? messages : messages.slice(0, -1)).map((content) =>
      createEvent({ invocationId, author: 'user', content }),
    );
  for (const event of stored) await sessions.appendEvent({ session, event });
  return {
    session,
    sessions,
    awaits,
    checkpoint,
    newMessage: goesOn ? undefined : messages.at(-1),
    // Each approved call is marked started just before its tool runs (see
    // ApprovedCallsStarted); a mark the store cannot take stops the segment.
    // An answer given in a tool's place ends the call before its start would be marked.
    // A call a grant allows runs once its line is stored (GrantedCalls).
    plugins: [
      answers,
      ...(starting.size === 0 ? [] : [startedMarks]),
      ...grantedCalls,
      // Tools the app's approvals name that cannot ask themselves (an MCP server's).
      ...(named.size === 0 ? [] : [new NamedToolGate(named)]),
    ],
  };
}

/**
 * A run going on from its last checkpoint runs again the tool calls its stopped segment
 * left open (its AgentTools' runs' too), under the same call ids: a lock their `once()` left in the effect ledger
 * without a result is released, so the effect runs again under the same key (a result
 * stored is kept, and answers the call).
 */
async function takeOverOpenCalls(
  ctx: RuntimeContext,
  events: readonly Event[],
  sessionId: string,
  invocationId: string,
): Promise<void> {
  const open = openToolCalls(events.filter((e) => e.invocationId === invocationId));
  for (const call of open) {
    await ctx.store.effects.takeOver(toolCallEffectKey(sessionId, call.id));
  }
}

/**
 * A new run first answers the calls earlier runs left open (`closingEvent`), each
 * answer in the branch of its call, so the history it goes on from is balanced.
 */
async function closeOpenCalls(
  ctx: RuntimeContext,
  sessions: SegmentSessions,
  session: Session,
  sessionId: string,
  invocationId: string,
): Promise<void> {
  const closing = await closingEvent(session.events, invocationId, NOT_RUN, (callId) =>
    ctx.store.effects.inspect(toolCallEffectKey(sessionId, callId)),
  );
  const closings = closing?.content
    ? (answersByBranch(session.events, [closing.content], invocationId) ?? [closing])
    : [];
  for (const event of closings) await sessions.appendEvent({ session, event });
}

/** The user's messages, split: what the session's own agents get, and each AgentTool run's. */
interface RoutedAnswers {
  own: Content[];
  toAgentToolRuns: { session: Session; content: Content }[];
}

/**
 * Splits the answers of a resume by who made the calls they answer: the session's own
 * agents, or the run of an `AgentTool` call (its confirmation requests and long-running
 * calls). Each message keeps its order, and a part its message.
 */
function routeAnswers(sessions: SegmentSessions, messages: readonly Content[]): RoutedAnswers {
  const routed: RoutedAnswers = { own: [], toAgentToolRuns: [] };
  for (const message of messages) {
    const own: Part[] = [];
    const byRun = new Map<string, Part[]>();
    for (const part of message.parts ?? []) {
      const id = part.functionResponse?.id;
      const callId = id === undefined ? undefined : sessions.agentToolCallMaking(id);
      if (callId === undefined) own.push(part);
      else byRun.set(callId, [...(byRun.get(callId) ?? []), part]);
    }
    if (own.length > 0) routed.own.push({ ...message, parts: own });
    for (const [callId, parts] of byRun) {
      routed.toAgentToolRuns.push({
        session: sessions.agentToolSession(callId),
        content: { ...message, parts },
      });
    }
  }
  return routed;
}
