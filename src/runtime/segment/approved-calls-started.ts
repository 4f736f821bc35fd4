import type { Context } from '@google/adk';
import { HoldpointPlugin } from '../../agents/holdpoint-plugin.js';

/**
 * Marks an approved tool call started in the effect ledger the moment ADK is about to
 * run its tool, and not before: a call the ledger has no mark for never reached its
 * tool, so a run recovered after a crash runs it without asking anyone again. A mark
 * that cannot be stored stops the call (`mark` throws, and ADK's run with it): the
 * tool never runs unmarked.
 */
export class ApprovedCallsStarted extends HoldpointPlugin {
  constructor(
    private readonly approved: ReadonlySet<string>,
    private readonly mark: (callId: string) => Promise<void>,
  ) {
    super('holdpoint-approved-calls-started');
  }

  override async beforeToolCallback({
    toolContext,
  }: {
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    const callId = toolContext.functionCallId;
    if (callId !== undefined && this.approved.has(callId)) await this.mark(callId);
    return undefined;
  }
}
