/** What the ledger knows of one key's effect. */
export interface EffectRecord {
  /** A tool call marked this key before it ran (`markStarted`). */
  started: boolean;
  /**
   * `done`: the result is stored; `locked`: an effect locked the key and has no result yet
   * (it runs, or its process stopped inside it).
   */
  state: 'none' | 'locked' | 'done';
  result?: unknown;
}

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
   * Records, durably, that the approved tool call with this key is about to run, so
   * a run recovered after a crash knows it may have had its effect.
   */
  markStarted(key: string): Promise<void>;
  /** What is recorded for `key`. */
  inspect(key: string): Promise<EffectRecord>;
  /**
   * Drops a lock that has no result, so the effect can run again: for a run
   * recovered after the process that held the lock stopped. The effect then runs
   * again with the same key (pass `idempotencyKey` to the outside API so it happens
   * once there); a result stored meanwhile is kept.
   */
  takeOver(key: string): Promise<void>;
}

/** The ledger key of a tool call's effect: call ids are unique within a session. */
export function toolCallEffectKey(sessionId: string, callId: string): string {
  return `${sessionId}:${callId}`;
}
