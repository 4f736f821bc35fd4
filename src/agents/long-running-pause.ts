import type { BaseTool, Context } from '@google/adk';
import { HoldpointPlugin } from './holdpoint-plugin.js';

/**
 * Ends the agent's turn at a long-running tool's own result (`{status: 'pending'}`
 * and the like): a long-running call waits for a person, so the run pauses right
 * there. Without it ADK hands the pending result to the model first — a model call
 * that costs, and whose answer ("still waiting…") the person's real answer makes
 * moot. ADK's own `get_user_choice` tool ends its turn the same way
 * (`skipSummarization`: the response event is final, for the agent that called the
 * tool and for every agent that handed over to it). A long-running tool that returns
 * nothing makes no response event, and ADK already ends the turn at its call.
 */
export class LongRunningPausePlugin extends HoldpointPlugin {
  constructor() {
    super('holdpoint-long-running-pause');
  }

  override async afterToolCallback(params: {
    tool: BaseTool;
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    if (params.tool.isLongRunning) params.toolContext.actions.skipSummarization = true;
    return undefined;
  }
}
