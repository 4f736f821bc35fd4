import { BaseAgent, type BaseAgentConfig, type Event, type InvocationContext } from '@google/adk';
import {
  agentStateEvent,
  endOfAgentEvent,
  escalatedSinceCheckpoint,
  isAgentEnded,
  loadAgentState,
} from './agent-state.js';
import { runStep, type StepEnd } from './run-step.js';

/** What a loop checkpoints: the step it is in, and how many rounds it finished. */
interface LoopAgentState extends Record<string, unknown> {
  currentSubAgent: string;
  timesLooped: number;
}

/** `LoopAgent`'s options: ADK's `LoopAgentConfig`, the same fields. */
export interface LoopAgentConfig extends BaseAgentConfig {
  /** At most this many rounds; unbounded (until a step escalates) when not given. */
  maxIterations?: number;
}

/**
 * ADK's `LoopAgent`, resumable: runs its sub-agents in order, round after round,
 * until one escalates or `maxIterations` rounds are done, checkpointing the round
 * (`timesLooped`) and the step it enters. A step that pauses the run stops the loop;
 * the resumed run goes on in that round, inside that step.
 */
export class LoopAgent extends BaseAgent<LoopAgentConfig> {
  readonly maxIterations: number;

  constructor(config: LoopAgentConfig) {
    super(config);
    this.maxIterations = config.maxIterations ?? Number.MAX_SAFE_INTEGER;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    if (isAgentEnded(ctx, this)) return;
    const state = loadAgentState<LoopAgentState>(ctx, this);
    let timesLooped = state?.timesLooped ?? 0;
    let from = Math.max(
      0,
      this.subAgents.findIndex((a) => a.name === state?.currentSubAgent),
    );
    while (timesLooped < this.maxIterations) {
      for (const agent of this.subAgents.slice(from)) {
        const resumed = agent.name === state?.currentSubAgent && timesLooped === state.timesLooped;
        if (!resumed) {
          yield agentStateEvent(ctx, this, { currentSubAgent: agent.name, timesLooped });
        }
        // A step resumed after a pause or a crash may have escalated before it.
        const end: StepEnd = {
          paused: false,
          escalated: resumed && escalatedSinceCheckpoint(ctx, this),
        };
        yield* runStep(agent, ctx, end);
        if (end.paused || ctx.abortSignal?.aborted) return;
        if (end.escalated) {
          yield endOfAgentEvent(ctx, this);
          return;
        }
      }
      from = 0;
      timesLooped += 1;
    }
    yield endOfAgentEvent(ctx, this);
  }

  // biome-ignore lint/correctness/useYield: live runs are not supported, as for ADK's own
  protected async *runLiveImpl(): AsyncGenerator<Event, void, void> {
    throw new Error(`${this.name}: live runs are not supported by Holdpoint's LoopAgent.`);
  }
}
