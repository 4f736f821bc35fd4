import { BasePlugin, type BaseTool, type Context } from '@google/adk';
import { type EffectLedger, toolCallEffectKey } from '../../core/effect-ledger.js';
import type { Pause } from '../../core/types.js';

/** The tool calls a person approved in `pause` (confirmations), by call id. */
export function approvedCalls(pause: Pause | undefined): Set<string> {
  const approved = new Set(pause?.decisions.filter((d) => d.approved).map((d) => d.approvalId));
  return new Set(
    pause?.approvals
      .filter((a) => a.kind === 'confirmation' && approved.has(a.approvalId))
      .map((a) => a.toolCallId) ?? [],
  );
}

/**
 * Records in the effect ledger, before an approved tool call runs, that it started.
 * A run recovered after its process died reads it back: an approved call that started
 * and left no result in the ledger may have had its effect, so it is not run again
 * without asking (unless the tool is declared idempotent).
 */
export class ApprovedCallMarker extends BasePlugin {
  constructor(
    private readonly sessionId: string,
    private readonly calls: ReadonlySet<string>,
    private readonly effects: EffectLedger,
  ) {
    super('holdpoint_approved_call_marker');
  }

  override async beforeToolCallback({
    toolContext,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
  }): Promise<undefined> {
    const callId = toolContext.functionCallId;
    if (callId && this.calls.has(callId)) {
      await this.effects.markStarted(toolCallEffectKey(this.sessionId, callId));
    }
    return undefined;
  }
}
