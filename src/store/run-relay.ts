import { EventEmitter } from 'node:events';

/** Stops a subscription. */
export type Unsubscribe = () => Promise<void>;

/**
 * Carries what happens to a session's run to whoever waits on it, in any process
 * sharing the store: the process that runs a segment publishes, a stream waiting
 * on the session (continuous approvals) subscribes. Messages are JSON values;
 * delivery is at most once and in publish order, so it wakes and informs
 * waiters but is never the record — the store is.
 */
export interface RunRelay {
  /** Sends a message to the session's subscribers; never throws (best effort). */
  publish(sessionId: string, message: unknown): void;
  /** Receives the session's messages from now on. */
  subscribe(sessionId: string, handler: (message: unknown) => void): Promise<Unsubscribe>;
}

/** The relay of one process. */
export class MemoryRelay implements RunRelay {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  publish(sessionId: string, message: unknown): void {
    if (this.emitter.listenerCount(sessionId) === 0) return;
    // Delivered on a later tick, as over a network, and as a copy.
    const copy = structuredClone(message);
    queueMicrotask(() => this.emitter.emit(sessionId, copy));
  }

  async subscribe(sessionId: string, handler: (message: unknown) => void): Promise<Unsubscribe> {
    this.emitter.on(sessionId, handler);
    return async () => {
      this.emitter.off(sessionId, handler);
    };
  }
}
