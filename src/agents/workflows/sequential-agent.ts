import { BaseAgent, type Event, type InvocationContext } from '@google/adk';
import { agentStateEvent, endOfAgentEvent, isAgentEnded, loadAgentState } from './agent-state.js';
import { runStep, type StepEnd } from './run-step.js';

/** What a sequence checkpoints: the step it is in. */
interface SequentialAgentState extends Record<string, unknown> {
  currentSubAgent: string;
}

/**
 * ADK's `SequentialAgent`, resumable: runs its sub-agents in order, checkpointing the
 * step it enters. A step that pauses the run (a confirmation, a long-running tool)
 * stops the sequence — the next step never runs before the decision — and the
 * resumed run goes on inside that step, not from the first one.
 */
export class SequentialAgent extends BaseAgent {
  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    if (isAgentEnded(ctx, this)) return;
    const state = loadAgentState<SequentialAgentState>(ctx, this);
    const from = Math.max(
      0,
      this.subAgents.findIndex((a) => a.name === state?.currentSubAgent),
    );
    for (const agent of this.subAgents.slice(from)) {
      if (agent.name !== state?.currentSubAgent) {
        yield agentStateEvent(ctx, this, { currentSubAgent: agent.name });
      }
      const end: StepEnd = { paused: false, escalated: false };
      yield* runStep(agent, ctx, end);
      if (end.paused || ctx.abortSignal?.aborted) return;
    }
    yield endOfAgentEvent(ctx, this);
  }

  // biome-ignore lint/correctness/useYield: live runs are not supported, as for ADK's own
  protected async *runLiveImpl(): AsyncGenerator<Event, void, void> {
    throw new Error(`${this.name}: live runs are not supported by Holdpoint's SequentialAgent.`);
  }
}
