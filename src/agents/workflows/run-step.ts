import type { BaseAgent, Event, InvocationContext } from '@google/adk';
import { agentToResume } from './agent-to-resume.js';
import { leavesCallsOpen } from './open-calls.js';

/** How a workflow step ended. */
export interface StepEnd {
  /** It left a call waiting for a person: the run pauses, the workflow stops here. */
  paused: boolean;
  /** One of its events asked to leave the enclosing loop. */
  escalated: boolean;
}

/**
 * Runs one sub-agent as a step of a workflow, handing on its events; `end` says how
 * it ended. A custom agent stops when `end.paused`: the run waits for a person inside
 * that step, and must not checkpoint past it (`yield* runStep(agent, ctx, end)`).
 * Resumed inside the step, it goes on with the agent the step handed over to, if any.
 */
export async function* runStep(
  agent: BaseAgent,
  ctx: InvocationContext,
  end: StepEnd,
): AsyncGenerator<Event, void, void> {
  const events: Event[] = [];
  for await (const event of agentToResume(agent, ctx).runAsync(ctx)) {
    events.push(event);
    if (event.actions?.escalate) end.escalated = true;
    yield event;
    if (ctx.abortSignal?.aborted) break;
  }
  end.paused = leavesCallsOpen(events);
}
