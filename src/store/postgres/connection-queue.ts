import { HoldpointError } from '../../core/errors.js';

/** What a refused caller is told to wait before it tries again, in seconds. */
export const STORE_BUSY_RETRY_SECONDS = 1;

/**
 * The turns at a pool's connections: at most `slots` callers hold one at a time, the
 * others wait in order; the work of a run that holds its session (`claimed`) goes before
 * new work and is never refused. New work finding `maxWaiting` callers already waiting
 * is refused at once with STORE_BUSY (nothing was sent): back-pressure, not an outage.
 */
export class ConnectionQueue {
  private holding = 0;
  private readonly claimed: (() => void)[] = [];
  private readonly fresh: (() => void)[] = [];

  constructor(
    private readonly slots: number,
    private readonly maxWaiting: number,
  ) {}

  /** How many callers wait for a turn now. */
  get waiting(): number {
    return this.claimed.length + this.fresh.length;
  }

  /** Waits for a turn; resolves with the function that ends it (call it exactly once). */
  async take(claimed: boolean): Promise<() => void> {
    if (this.holding < this.slots && this.waiting === 0) {
      this.holding += 1;
      return this.releaser();
    }
    if (!claimed && this.fresh.length >= this.maxWaiting) {
      throw new HoldpointError(
        'STORE_BUSY',
        `PostgreSQL is busy: ${this.waiting} requests of this server wait for one of its ${this.slots} connections; try again shortly.`,
        { retry_after_seconds: STORE_BUSY_RETRY_SECONDS },
      );
    }
    await new Promise<void>((resolve) => (claimed ? this.claimed : this.fresh).push(resolve));
    return this.releaser();
  }

  /** Ends a turn once: the next waiter (claimed work first) takes it over. */
  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.claimed.shift() ?? this.fresh.shift();
      if (next) next();
      else this.holding -= 1;
    };
  }
}
