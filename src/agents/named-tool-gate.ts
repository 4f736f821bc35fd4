import { type BaseTool, type Context, isAgentTool, isFunctionTool } from '@google/adk';
import { namesTool } from '../core/tool-entry.js';
import { HoldpointPlugin } from './holdpoint-plugin.js';

/**
 * Whether a call of `tool` is asked about by the gate: a tool the app's `approvals` name
 * (`named`) that cannot ask for a person itself — an MCP server's tool (ADK's
 * `MCPToolset`), any other `BaseTool` — as a FunctionTool does with `requireConfirmation`,
 * a long-running tool by pausing, an AgentTool through its agent's own tools.
 */
export function gatedByName(tool: BaseTool, named: ReadonlySet<string>): boolean {
  return (
    namesTool(named, tool.name) &&
    !isFunctionTool(tool) &&
    !isAgentTool(tool) &&
    !tool.isLongRunning
  );
}

/**
 * Asks a person before every call of a tool the gate covers (`gatedByName`), as ADK asks
 * for a FunctionTool with `requireConfirmation`: the first time, a confirmation request
 * (the run pauses on it, the call's arguments bound to the decision); once answered, the
 * call runs if approved (with a decider's edit, applied before it) and is answered
 * "rejected" if not. A grant that covers the call confirmed it already (GrantedCalls).
 */
export class NamedToolGate extends HoldpointPlugin {
  constructor(private readonly named: ReadonlySet<string>) {
    super('holdpoint-named-tool-gate');
  }

  override async beforeToolCallback({
    tool,
    toolContext,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    if (!gatedByName(tool, this.named)) return undefined;
    const confirmation = toolContext.toolConfirmation;
    if (!confirmation) {
      toolContext.requestConfirmation({
        hint: `Please approve or reject the tool call ${tool.name}().`,
      });
      toolContext.actions.skipSummarization = true;
      return { error: 'This tool call requires confirmation, please approve or reject.' };
    }
    return confirmation.confirmed ? undefined : { error: 'This tool call is rejected.' };
  }
}
