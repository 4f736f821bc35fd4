import { BaseAgent, type Event, InvocationContext } from '@google/adk';
import { agentStateEvent, endOfAgentEvent, isAgentEnded, loadAgentState } from './agent-state.js';
import { runStep, type StepEnd } from './run-step.js';

/** What a parallel agent checkpoints: the branches that finished. */
interface ParallelAgentState extends Record<string, unknown> {
  finished: string[];
}

/** The sub-agent's own branch of the conversation, as ADK's ParallelAgent makes it. */
function branchContext(parent: BaseAgent, agent: BaseAgent, ctx: InvocationContext) {
  const branch = new InvocationContext(ctx);
  const suffix = `${parent.name}.${agent.name}`;
  branch.branch = ctx.branch ? `${ctx.branch}.${suffix}` : suffix;
  return branch;
}

/** Hands on the events of several runs as they come. */
async function* merge(
  runs: AsyncGenerator<Event, void, void>[],
): AsyncGenerator<Event, void, void> {
  const next = (index: number) =>
    (runs[index] as AsyncGenerator<Event, void, void>).next().then((result) => ({ result, index }));
  const pending = new Map(runs.map((_, index) => [index, next(index)]));
  while (pending.size > 0) {
    const { result, index } = await Promise.race(pending.values());
    if (result.done) {
      pending.delete(index);
      continue;
    }
    // The event is handed on (and stored by the Runner) before its branch goes on:
    // the branch's next model call must see it.
    yield result.value;
    pending.set(index, next(index));
  }
}

/**
 * ADK's `ParallelAgent`, resumable: runs its sub-agents at once, each in its own
 * branch. The calls every branch leaves waiting for people become one pause (an
 * approval per call); the resumed run runs only the branches that had not finished,
 * each going on inside its own step, and the finished ones are not run again.
 */
export class ParallelAgent extends BaseAgent {
  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    if (isAgentEnded(ctx, this)) return;
    const finished = new Set(loadAgentState<ParallelAgentState>(ctx, this)?.finished ?? []);
    const parent = this;
    // Each branch that ends is checkpointed as it ends: a crash while others still
    // run does not run it again.
    async function* branch(agent: BaseAgent): AsyncGenerator<Event, void, void> {
      const end: StepEnd = { paused: false, escalated: false };
      yield* runStep(agent, branchContext(parent, agent, ctx), end);
      if (end.paused || ctx.abortSignal?.aborted) return;
      finished.add(agent.name);
      yield agentStateEvent(ctx, parent, { finished: [...finished] });
    }
    yield* merge(this.subAgents.filter((a) => !finished.has(a.name)).map(branch));
    if (ctx.abortSignal?.aborted || finished.size < this.subAgents.length) return;
    yield endOfAgentEvent(ctx, this);
  }

  // biome-ignore lint/correctness/useYield: live runs are not supported, as for ADK's own
  protected async *runLiveImpl(): AsyncGenerator<Event, void, void> {
    throw new Error(`${this.name}: live runs are not supported by Holdpoint's ParallelAgent.`);
  }
}
