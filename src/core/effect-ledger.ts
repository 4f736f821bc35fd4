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
}

/** The ledger key of a tool call's effect: call ids are unique within a session. */
export function toolCallEffectKey(sessionId: string, callId: string): string {
  return `${sessionId}:${callId}`;
}
