import type { EffectLedger } from '../../core/effect-ledger.js';

/** The session a ledger key belongs to (keys are `<sessionId>:<callId>`). */
function sessionOf(key: string): string {
  const colon = key.indexOf(':');
  return colon < 0 ? '' : key.slice(0, colon);
}

/**
 * Effects of one process; a second call with the same key waits for the first.
 * Results are kept per session and go with it.
 */
export class MemoryEffectLedger implements EffectLedger {
  private readonly results = new Map<string, Map<string, Promise<unknown>>>();

  once<T>(key: string, effect: () => Promise<T>): Promise<T> {
    const session = sessionOf(key);
    const results = this.results.get(session) ?? new Map<string, Promise<unknown>>();
    this.results.set(session, results);
    const known = results.get(key);
    if (known) return known as Promise<T>;
    const running = effect().catch((error: unknown) => {
      results.delete(key);
      throw error;
    });
    results.set(key, running);
    return running;
  }

  /** Forgets the results of a session that is gone. */
  forgetSession(sessionId: string): void {
    this.results.delete(sessionId);
  }
}
