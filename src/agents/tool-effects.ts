import { hash } from 'node:crypto';
import type { Context } from '@google/adk';
import { type EffectLedger, toolCallEffectKey } from '../core/effect-ledger.js';
import { HoldpointError } from '../core/errors.js';

/**
 * Where the session service of a Holdpoint run keeps its effect ledger. A global
 * symbol, so a tool module that loaded its own copy of this package still finds it.
 */
export const EFFECT_LEDGER: unique symbol = Symbol.for('holdpoint.effect-ledger') as never;

/** A session service that carries an effect ledger (the one of a Holdpoint run). */
export interface WithEffectLedger {
  [EFFECT_LEDGER]?: EffectLedger;
}

interface ToolCall {
  sessionId: string;
  callId: string;
}

function toolCall(toolContext: Context | undefined): ToolCall {
  const callId = toolContext?.functionCallId;
  const sessionId = toolContext?.invocationContext?.session?.id;
  if (!callId || !sessionId) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      'once() and idempotencyKey() need the tool context ADK passes to execute(args, toolContext).',
    );
  }
  return { sessionId, callId };
}

/**
 * A stable key for this tool call, the same on every resume, retry and restart:
 * pass it to an outside API as its idempotency key. Derived from the session id and
 * the tool call id; 43 characters, `hp_` and hex.
 */
export function idempotencyKey(toolContext: Context | undefined): string {
  const { sessionId, callId } = toolCall(toolContext);
  return `hp_${hash('sha256', `${sessionId}\n${callId}`).slice(0, 40)}`;
}

/**
 * Runs `effect` once for this tool call and stores its result: a tool call that runs
 * again (a repeated resume, a retry, another instance, a restart) gets the stored
 * result instead of a second effect. The result is kept as JSON (see `asStored`).
 * While another process runs the same call's effect, this throws EFFECT_IN_PROGRESS,
 * which ADK hands the model as the tool's error result. Outside a Holdpoint run
 * (a plain ADK Runner, a unit test) there is no ledger and `effect` simply runs.
 */
export async function once<T>(
  toolContext: Context | undefined,
  effect: () => Promise<T> | T,
): Promise<T> {
  const { sessionId, callId } = toolCall(toolContext);
  const service = toolContext?.invocationContext.sessionService as WithEffectLedger | undefined;
  const ledger = service?.[EFFECT_LEDGER];
  if (!ledger) return effect();
  return ledger.once(toolCallEffectKey(sessionId, callId), async () => asStored(await effect()));
}

/**
 * The result as the ledger keeps it, so a replay returns exactly what the first run
 * did (a Date becomes its string, as in JSON). A result JSON cannot encode at all (a
 * BigInt, a cycle) is replaced by an error result: the effect has happened and must
 * not run again, so something has to be stored.
 */
function asStored<T>(result: T): T {
  if (result === undefined) return result;
  try {
    return JSON.parse(JSON.stringify(result)) as T;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      error: `The action ran, but its result cannot be stored as JSON (${why}); it will not run again.`,
    } as T;
  }
}
