import { type AgentTool, type BaseAgent, isAgentTool, isLlmAgent } from '@google/adk';

/** The agent an ADK `AgentTool` runs (ADK keeps the field private; every AgentTool has one). */
export function agentOfTool(tool: AgentTool): BaseAgent {
  return (tool as unknown as { agent: BaseAgent }).agent;
}

/** The agents `agent`'s tools run: the agent of each of its `AgentTool`s. */
export function toolAgentsOf(agent: BaseAgent): BaseAgent[] {
  if (!isLlmAgent(agent)) return [];
  return agent.tools.flatMap((tool) => (isAgentTool(tool) ? [agentOfTool(tool)] : []));
}

/**
 * Every agent an app runs, each once, root first: its sub-agents and the agents its
 * `AgentTool`s run, at any depth.
 */
export function agentsOf(root: BaseAgent): BaseAgent[] {
  const seen = new Set<BaseAgent>();
  const visit = (agent: BaseAgent) => {
    if (seen.has(agent)) return;
    seen.add(agent);
    for (const next of [...agent.subAgents, ...toolAgentsOf(agent)]) visit(next);
  };
  visit(root);
  return [...seen];
}
