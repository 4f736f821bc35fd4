import { BasePlugin, type BaseTool, type Context } from '@google/adk';

/**
 * Holds every tool call of a session until the session is stored. A new session's
 * first run starts while its creation is still on the way to the store; no tool
 * may have an effect for a session that might never exist.
 */
export class DurabilityGate extends BasePlugin {
  private readonly pending = new Map<string, Promise<void>>();

  constructor() {
    super('holdpoint-durability-gate');
  }

  /** Holds the session's tool calls until `stored` settles; returns what lifts the hold. */
  hold(sessionId: string, stored: Promise<void>): () => void {
    this.pending.set(sessionId, stored);
    return () => {
      if (this.pending.get(sessionId) === stored) this.pending.delete(sessionId);
    };
  }

  /**
   * Leaves the tools as they are. Defined here only because ADK's own version is
   * marked experimental and logs a warning the first time it runs.
   */
  override async beforeToolSelection(): Promise<undefined> {
    return undefined;
  }

  /** Waits for the session to be stored; a session that never will be fails the call. */
  override async beforeToolCallback({
    toolContext,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    await this.pending.get(toolContext.invocationContext.session.id);
    return undefined;
  }
}
