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
export function runIdOf(ctx: InvocationContext): string {
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
 * The state `agent` checkpointed last in the current run, or undefined when it has
 * none — it has not started in this run, or it ended (`endOfAgentEvent`), so it
 * starts afresh. Shaped like ADK-Python's `_load_agent_state`.
 */
export function loadAgentState<State extends Record<string, unknown>>(
  ctx: InvocationContext,
  agent: BaseAgent | string,
): State | undefined {
  const name = typeof agent === 'string' ? agent : agent.name;
  const events = runEvents(ctx);
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as Event;
    if (event.author !== name) continue;
    if (event.actions?.endOfAgent) return undefined;
    if (event.actions?.agentState) return event.actions.agentState as State;
  }
  return undefined;
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
