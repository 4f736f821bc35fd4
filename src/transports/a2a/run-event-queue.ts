import type { RunEvent, RunEventSink } from '../../runtime/run-event.js';

/**
 * A run's events, pushed by the runtime's sink as they happen, read by a stream at its
 * own pace (an async iterable that ends once `end` is called and all are read).
 */
export class RunEventQueue implements AsyncIterable<RunEvent> {
  private readonly events: RunEvent[] = [];
  private ended = false;
  private wake?: () => void;

  /** The sink to hand the runtime. */
  readonly sink: RunEventSink = (event) => {
    this.events.push(event);
    this.wake?.();
  };

  /** No more events: the iteration ends once those pushed are read. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    for (;;) {
      const event = this.events.shift();
      if (event) {
        yield event;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}
