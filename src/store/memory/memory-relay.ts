import { EventEmitter } from 'node:events';
import type { RunRelay, Unsubscribe } from '../run-relay.js';

/** The relay of one process: the memory store's sessions live nowhere else. */
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
