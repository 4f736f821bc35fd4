import { createHash } from 'node:crypto';
import { type BaseAgent, isAgentTool, isLlmAgent } from '@google/adk';
import { agentOfTool } from './agent-tree.js';

/**
 * What a run depends on in its app: the agent tree (each agent's place, name and
 * class, the agents of its AgentTools included) and each agent's tools, one line per part, and a fingerprint of them all.
 */
export interface AppShape {
  fingerprint: string;
  parts: string[];
}

/** The shape of the agent tree under `root`; sub-agents in order, since order is behaviour. */
export function appShape(root: BaseAgent): AppShape {
  const parts: string[] = [];
  const visit = (agent: BaseAgent, path: string) => {
    parts.push(`agent ${path} (${agent.constructor.name})`);
    for (const tool of isLlmAgent(agent) ? agent.tools : []) {
      const name = (tool as { name?: unknown }).name;
      const named = typeof name === 'string' ? name : '(unnamed)';
      parts.push(`tool ${path} ${named}`);
      // An AgentTool's agent runs inside the run, and resumes there: its shape counts.
      if (isAgentTool(tool)) visit(agentOfTool(tool), `${path}/tool:${named}`);
    }
    agent.subAgents.forEach((sub, i) => {
      visit(sub, `${path}/${i}:${sub.name}`);
    });
  };
  visit(root, root.name);
  const fingerprint = createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
  return { fingerprint, parts };
}

/** What differs between two shapes' parts. */
export function shapeChanges(
  before: string[],
  after: string[],
): { added: string[]; removed: string[] } {
  const was = new Set(before);
  const now = new Set(after);
  return {
    added: after.filter((part) => !was.has(part)),
    removed: before.filter((part) => !now.has(part)),
  };
}
