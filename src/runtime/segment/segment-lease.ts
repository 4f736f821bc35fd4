import type { Lease } from '../../core/types.js';
import type { RuntimeContext } from '../runtime-context.js';
import { LeaseKeeper } from './lease-keeper.js';

/**
 * The lease a segment keeps while it works, across the pauses it holds in place: a
 * `LeaseKeeper` for each stretch of work, and `stop` aborted if one is lost. A held
 * pause is stored without a lease to keep, so its keeper is retired first; the decision
 * hands the segment a new lease to keep.
 */
export class SegmentLease {
  private keeper: LeaseKeeper;
  private readonly retired = new WeakSet<LeaseKeeper>();

  /** Keeps `lease` at once; `stop` stops ADK when it is lost. */
  constructor(
    private readonly ctx: RuntimeContext,
    private readonly sessionId: string,
    private readonly invocationId: string,
    lease: Lease,
    private readonly stop: AbortController,
  ) {
    this.keeper = this.keep(lease);
  }

  /**
   * Stops keeping the lease for a pause held in place: a renewal still under way meets
   * the paused session, and must not stop the segment.
   */
  retire(): void {
    this.keeper.stop();
    this.retired.add(this.keeper);
  }

  /** Keeps the lease a decision handed over to the segment holding its pause. */
  takeBack(lease: Lease): void {
    this.keeper = this.keep(lease);
  }

  /** Stops renewing: the segment is about to end. */
  release(): void {
    this.keeper.stop();
  }

  /** Whether the lease ran out before a renewal could be confirmed (the store stopped answering). */
  get unconfirmed(): boolean {
    return this.keeper.stopped === 'unconfirmed';
  }

  private keep(lease: Lease): LeaseKeeper {
    const keeper: LeaseKeeper = new LeaseKeeper(
      this.ctx,
      this.sessionId,
      this.invocationId,
      lease,
      () => {
        if (!this.retired.has(keeper)) this.stop.abort();
      },
    );
    return keeper;
  }
}
