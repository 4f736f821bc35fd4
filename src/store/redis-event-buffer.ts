/** One appended ADK event waiting for its session's next commit. */
export interface BufferedEvent {
  id: string;
  timestamp: number;
  /** The event as it will be stored, captured when it was appended. */
  json: string;
  appName: string;
  userId: string;
  /** Its state delta by scope: key (without `app:` / `user:`) → JSON value. */
  sessionState: Record<string, string>;
  appState: Record<string, string>;
  userState: Record<string, string>;
}

/**
 * The ADK events this process appended but has not written yet, per session. A
 * session's events are drained only by one write at a time, in append order, and
 * leave the buffer only once that write succeeded.
 */
export class RedisEventBuffer {
  private readonly events = new Map<string, BufferedEvent[]>();
  private readonly writes = new Map<string, Promise<unknown>>();

  add(sessionId: string, event: BufferedEvent): void {
    const events = this.events.get(sessionId) ?? [];
    const index = events.findIndex((e) => e.id === event.id);
    // ADK replaces an event appended twice; keep that here too.
    if (index >= 0) events[index] = event;
    else events.push(event);
    this.events.set(sessionId, events);
  }

  list(sessionId: string): BufferedEvent[] {
    return [...(this.events.get(sessionId) ?? [])];
  }

  drop(sessionId: string): void {
    this.events.delete(sessionId);
  }

  /**
   * Calls `write` with the session's buffered events, one call per session at a time;
   * the events it was given leave the buffer when it returns a value.
   */
  drain<T>(
    sessionId: string,
    write: (events: BufferedEvent[]) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const run = async () => {
      const taken = this.list(sessionId);
      const result = await write(taken);
      if (result !== undefined) {
        const left = (this.events.get(sessionId) ?? []).filter((e) => !taken.includes(e));
        if (left.length > 0) this.events.set(sessionId, left);
        else this.events.delete(sessionId);
      }
      return result;
    };
    // With no write in flight the write starts at once, so its commands leave now.
    const previous = this.writes.get(sessionId);
    const current = previous ? previous.then(run, run) : run();
    const settled = current.catch(() => undefined);
    this.writes.set(sessionId, settled);
    void settled.then(() => {
      if (this.writes.get(sessionId) === settled) this.writes.delete(sessionId);
    });
    return current;
  }
}
