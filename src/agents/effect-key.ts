import type { Context } from '@google/adk';
import { toolCallEffectKey } from '../core/effect-ledger.js';

/**
 * The effect-ledger key of one tool call. The call id alone is unique only within a
 * session, so the session id scopes it.
 */
export function effectKey(ctx: Context | undefined): string {
  const callId = ctx?.functionCallId;
  if (!ctx || !callId) throw new Error('a side-effecting tool needs its call context');
  return toolCallEffectKey(ctx.invocationContext.session.id, callId);
}
