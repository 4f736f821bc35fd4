import {
  type BaseAgent,
  createEvent,
  createEventActions,
  type Event,
  type InvocationContext,
} from '@google/adk';

/**
 * Where a Holdpoint run puts its own invocation id on the session it drives. A global
 * symbol, so agents built with another copy of this package still find it. ADK gives
 * each segment of a run (each resume) an invocation id of its own; Holdpoint stamps
 * the run's on every event it stores, so the run's events are the ones carrying it.
 */
export const RUN_ID: unique symbol = Symbol.for('holdpoint.run-id') as never;

/** A session as Holdpoint drives it: it knows the run's invocation id. */
export interface WithRunId {
  [RUN_ID]?: string;
}

/** The id the events of the current run carry: Holdpoint's run id, else ADK's invocation id. */
function runIdOf(ctx: InvocationContext): string {
  return (ctx.session as WithRunId)[RUN_ID] ?? ctx.invocationId;
}

/** The events of the current run, in order: its earlier segments' and this one's. */
export function runEvents(ctx: InvocationContext): Event[] {
  const runId = runIdOf(ctx);
  return ctx.session.events.filter(
    (event) => event.invocationId === runId || event.invocationId === ctx.invocationId,
  );
}

/**
 * Where `agent`'s own record starts among the run's events: right after its parent
 * last entered it (a workflow's checkpoint naming it as `currentSubAgent`), so a loop's
 * next round starts its steps afresh; else where its parent's record starts.
 */
function recordStart(events: Event[], agent: BaseAgent): number {
  const parent = agent.parentAgent;
  if (!parent) return 0;
  const parentStart = recordStart(events, parent);
  for (let i = events.length - 1; i >= parentStart; i--) {
    const event = events[i] as Event;
    const state = event.actions?.agentState as { currentSubAgent?: unknown } | undefined;
    if (event.author === parent.name && state?.currentSubAgent === agent.name) return i + 1;
  }
  return parentStart;
}

/**
 * The current run's events since `agent` was last entered as a step (see
 * `recordStart`): everything it, and the agents it handed over to, did in it so far.
 */
export function eventsSinceEntered(ctx: InvocationContext, agent: BaseAgent): Event[] {
  const events = runEvents(ctx);
  return events.slice(recordStart(events, agent));
}

/** What `agent` recorded last in the current run: its state, or that it ended. */
function lastRecord(
  ctx: InvocationContext,
  agent: BaseAgent,
): { state?: Record<string, unknown>; ended: boolean } {
  const events = runEvents(ctx);
  const from = recordStart(events, agent);
  for (let i = events.length - 1; i >= from; i--) {
    const event = events[i] as Event;
    if (event.author !== agent.name) continue;
    if (event.actions?.endOfAgent) return { ended: true };
    if (event.actions?.agentState) return { state: event.actions.agentState, ended: false };
  }
  return { ended: false };
}

/**
 * The state `agent` checkpointed last in the current run, or undefined when it has
 * none yet (or it ended). Shaped like ADK-Python's `_load_agent_state`.
 */
export function loadAgentState<State extends Record<string, unknown>>(
  ctx: InvocationContext,
  agent: BaseAgent,
): State | undefined {
  return lastRecord(ctx, agent).state as State | undefined;
}

/**
 * Whether `agent` already ended in the current run (`endOfAgentEvent`): run again —
 * its parent resumed after a crash — it has nothing left to do. A loop's next round
 * starts its steps afresh; a custom agent that runs a workflow twice checkpoints
 * `{ currentSubAgent: name }` before the second time.
 */
export function isAgentEnded(ctx: InvocationContext, agent: BaseAgent): boolean {
  return lastRecord(ctx, agent).ended;
}

/**
 * Whether the step `agent` last checkpointed entering has escalated in an earlier
 * segment of this run (before a pause or a crash): the events after that checkpoint.
 */
export function escalatedSinceCheckpoint(ctx: InvocationContext, agent: BaseAgent): boolean {
  const events = runEvents(ctx);
  const from = recordStart(events, agent);
  let since = from;
  for (let i = events.length - 1; i >= from; i--) {
    const event = events[i] as Event;
    if (event.author === agent.name && event.actions?.agentState) {
      since = i + 1;
      break;
    }
  }
  return events.slice(since).some((event) => event.actions?.escalate);
}

/**
 * An event that checkpoints `agent`'s state: yield it after each step. A run resumed
 * after a pause or a crash finds it with `loadAgentState` and goes on from there.
 */
export function agentStateEvent(
  ctx: InvocationContext,
  agent: BaseAgent,
  state: Record<string, unknown>,
): Event {
  return createEvent({
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    actions: createEventActions({ agentState: state }),
  });
}

/** An event that marks `agent` finished in this run: yield it last. */
export function endOfAgentEvent(ctx: InvocationContext, agent: BaseAgent): Event {
  return createEvent({
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    actions: createEventActions({ endOfAgent: true }),
  });
}
