import { type BaseAgent, type InvocationContext, isLlmAgent } from '@google/adk';
import { eventsSinceEntered } from './agent-state.js';

/**
 * Of the agents from `step` down to its descendant `agent`, the one the conversation
 * is with: LlmAgents hand it down by `transfer_to_agent`; a workflow agent on the way
 * goes on with its own steps itself (it finds them in its checkpointed state).
 */
function handedTo(step: BaseAgent, agent: BaseAgent): BaseAgent {
  const path: BaseAgent[] = [];
  for (let a: BaseAgent | undefined = agent; a && a !== step; a = a.parentAgent) path.unshift(a);
  let current = step;
  for (const next of path) {
    if (!isLlmAgent(current)) return current;
    current = next;
  }
  return current;
}

/**
 * The agent a workflow step goes on with when the run is resumed inside it. An
 * LlmAgent step that handed over (`transfer_to_agent`) in this run is still with the
 * agent it handed to: that agent made the call a person answers, and only it has the
 * call in its history (to the step, the call is another agent's — ADK fails with "No
 * function call event found for function responses ids"). ADK's Runner routes so at
 * the root only (`determineAgentForResumption`, through LlmAgents alone); a step finds
 * the latest agent of its subtree that spoke since the step was entered.
 */
export function agentToResume(step: BaseAgent, ctx: InvocationContext): BaseAgent {
  if (!isLlmAgent(step)) return step;
  const events = eventsSinceEntered(ctx, step);
  for (let i = events.length - 1; i >= 0; i--) {
    const author = events[i]?.author;
    if (author === step.name) return step;
    const agent = author && author !== 'user' ? step.findSubAgent(author) : undefined;
    if (agent) return handedTo(step, agent);
  }
  return step;
}
