import {
  type BaseAgent,
  type BaseTool,
  isAgentTool,
  isBaseTool,
  isFunctionTool,
  isLlmAgent,
  isLoopAgent,
  isParallelAgent,
  isSequentialAgent,
} from '@google/adk';
import { namesTool } from '../core/tool-entry.js';
import { agentOfTool } from './agent-tree.js';

/**
 * Why `tool` waits for a person, or undefined: a long-running tool, a FunctionTool with
 * `requireConfirmation`, or a tool the app's `approvals` name.
 */
function waitsForAPerson(tool: BaseTool, named: ReadonlySet<string>): string | undefined {
  if (tool.isLongRunning) return 'a long-running tool';
  const confirms = isFunctionTool(tool)
    ? (tool as unknown as { requireConfirmation?: unknown }).requireConfirmation
    : undefined;
  if (confirms) return 'requireConfirmation';
  return namesTool(named, tool.name) ? "named in the app's approvals" : undefined;
}

/** ADK's own workflow agents: they go on past a step that waits for a person. */
function adkWorkflowKind(agent: BaseAgent): string | undefined {
  if (isSequentialAgent(agent)) return 'SequentialAgent';
  if (isLoopAgent(agent)) return 'LoopAgent';
  if (isParallelAgent(agent)) return 'ParallelAgent';
  return undefined;
}

/**
 * The tools of `root`'s agent tree (sub-agents and `AgentTool`s' agents, at any depth)
 * that wait for a person where a run cannot pause for them, one sentence each naming
 * the tool and why: inside ADK's own `SequentialAgent`, `LoopAgent` or `ParallelAgent`,
 * whose next step runs before anyone decides (Holdpoint's, from `holdpoint/workflows`,
 * stop there). `named` are the tools the app's `approvals` name. An app with any is
 * refused when it is loaded: a tool that needs a person is never skipped in silence.
 */
export function silentSkips(root: BaseAgent, named: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const seen = new Set<BaseAgent>();
  const visit = (agent: BaseAgent, workflow: string | undefined) => {
    if (seen.has(agent)) return;
    seen.add(agent);
    const kind = adkWorkflowKind(agent);
    const inside = workflow ?? (kind && `ADK's ${kind} "${agent.name}"`);
    for (const tool of isLlmAgent(agent) ? agent.tools : []) {
      if (isAgentTool(tool)) {
        visit(agentOfTool(tool), inside);
        continue;
      }
      // A toolset's tools are known only when a run asks for them.
      if (!isBaseTool(tool)) continue;
      const why = inside && waitsForAPerson(tool, named);
      if (why) {
        found.push(
          `the tool ${tool.name} waits for a person (${why}) but runs inside ${inside}, which ` +
            `runs its next step before anyone decides: use the one from 'holdpoint/workflows'`,
        );
      }
    }
    for (const sub of agent.subAgents) visit(sub, inside);
  };
  visit(root, undefined);
  return found;
}
