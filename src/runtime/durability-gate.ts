import { BasePlugin, type BaseTool, type Context, type LlmResponse } from '@google/adk';

/** What a held call answers when the write it waited for will never hold. */
const STOPPED_TOOL = { error: 'The run stopped before this call: the store did not take it.' };
const STOPPED_MODEL: LlmResponse = { turnComplete: true };

interface Hold {
  /** true lets calls through; false or a rejection answers them without running them. */
  until: Promise<boolean>;
  models: boolean;
}

/** Whether the write a hold waits for is stored; a failed write never will be. */
function held(hold: Hold): Promise<boolean> {
  return hold.until.catch(() => false);
}

/**
 * Holds a session's calls until the write its run depends on is stored. A new
 * session's first run starts while its creation is still on the way to the store,
 * and a resumed run while its claim is: no tool may have an effect, and no model
 * of a resumed run may be called, for a write that might never hold.
 */
export class DurabilityGate extends BasePlugin {
  private readonly holds = new Map<string, Hold>();

  constructor() {
    super('holdpoint-durability-gate');
  }

  /**
   * Holds the session's tool calls, and its model calls too when `models`, until
   * `until` settles: true lets them through; false or a rejection answers them
   * without running them, and the caller aborts the run. Returns what lifts the hold.
   */
  hold(sessionId: string, until: Promise<boolean>, { models = false } = {}): () => void {
    const hold = { until, models };
    this.holds.set(sessionId, hold);
    return () => {
      if (this.holds.get(sessionId) === hold) this.holds.delete(sessionId);
    };
  }

  /**
   * Leaves the tools as they are. Defined here only because ADK's own version is
   * marked experimental and logs a warning the first time it runs.
   */
  override async beforeToolSelection(): Promise<undefined> {
    return undefined;
  }

  override async beforeToolCallback({
    toolContext,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    const hold = this.holds.get(toolContext.invocationContext.session.id);
    return !hold || (await held(hold)) ? undefined : STOPPED_TOOL;
  }

  override async beforeModelCallback({
    callbackContext,
  }: {
    callbackContext: Context;
  }): Promise<LlmResponse | undefined> {
    const hold = this.holds.get(callbackContext.invocationContext.session.id);
    return !hold?.models || (await held(hold)) ? undefined : STOPPED_MODEL;
  }
}
