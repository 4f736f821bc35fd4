import type { EffectLedger, EffectRecord } from '../../core/effect-ledger.js';

/** The session a ledger key belongs to (keys are `<sessionId>:<callId>`). */
function sessionOf(key: string): string {
  const colon = key.indexOf(':');
  return colon < 0 ? '' : key.slice(0, colon);
}

interface SessionEffects {
  running: Map<string, Promise<unknown>>;
  done: Map<string, unknown>;
  started: Set<string>;
}

/**
 * Effects of one process; a second call with the same key waits for the first.
 * Results are kept per session and go with it.
 */
export class MemoryEffectLedger implements EffectLedger {
  private readonly sessions = new Map<string, SessionEffects>();

  private of(key: string): SessionEffects {
    const session = sessionOf(key);
    let effects = this.sessions.get(session);
    if (!effects) {
      effects = { running: new Map(), done: new Map(), started: new Set() };
      this.sessions.set(session, effects);
    }
    return effects;
  }

  once<T>(key: string, effect: () => Promise<T>): Promise<T> {
    const effects = this.of(key);
    if (effects.done.has(key)) return Promise.resolve(effects.done.get(key) as T);
    const known = effects.running.get(key);
    if (known) return known as Promise<T>;
    const running: Promise<T> = effect().then(
      (result) => {
        // A lock taken over meanwhile belongs to the newer call: its result counts.
        if (effects.running.get(key) !== running) return result;
        effects.done.set(key, result);
        effects.running.delete(key);
        return result;
      },
      (error: unknown) => {
        if (effects.running.get(key) === running) effects.running.delete(key);
        throw error;
      },
    );
    effects.running.set(key, running);
    return running;
  }

  async markStarted(key: string): Promise<void> {
    this.of(key).started.add(key);
  }

  async inspect(key: string): Promise<EffectRecord> {
    const effects = this.sessions.get(sessionOf(key));
    const started = effects?.started.has(key) ?? false;
    if (effects?.done.has(key)) return { started, state: 'done', result: effects.done.get(key) };
    return { started, state: effects?.running.has(key) ? 'locked' : 'none' };
  }

  async takeOver(key: string): Promise<void> {
    this.sessions.get(sessionOf(key))?.running.delete(key);
  }

  /** Forgets the results of a session that is gone. */
  forgetSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }
}
