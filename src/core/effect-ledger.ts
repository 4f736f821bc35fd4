import type { Pause } from './types.js';

/**
 * Makes a side effect happen once per key, across retries, concurrent resumes and
 * processes. Tools that move money or make things call it around their effect,
 * keyed by `toolCallEffectKey`.
 */
export interface EffectLedger {
  /**
   * Runs `effect` the first time `key` is seen and stores its JSON result; later
   * calls with the same key return the stored result without running it.
   */
  once<T>(key: string, effect: () => Promise<T>): Promise<T>;
  /**
   * Starts claiming `key` for a `once(key)` this process is about to make, so the
   * claim travels while the run gets to the tool; a key already being claimed is not
   * claimed twice. Returns what gives the claim up if that `once` never came; after
   * it came, the returned function does nothing. Ledgers without claims to send
   * need not implement it.
   */
  prepare?(key: string): () => void;
}

/**
 * The effects a resumed pause runs first thing: those of its approved confirmations'
 * tool calls.
 */
export function resumedEffectKeys(pause: Pause): string[] {
  const approved = new Set(pause.decisions.filter((d) => d.approved).map((d) => d.approvalId));
  return pause.approvals
    .filter((a) => a.kind === 'confirmation' && approved.has(a.approvalId))
    .map((a) => toolCallEffectKey(pause.sessionId, a.toolCallId));
}

/** The ledger key of a tool call's effect: call ids are unique within a session. */
export function toolCallEffectKey(sessionId: string, callId: string): string {
  return `${sessionId}:${callId}`;
}
