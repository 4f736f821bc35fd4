import type { Cancel } from '../../core/clock.js';
import { isHoldpointError } from '../../core/errors.js';
import type { Lease } from '../../core/types.js';
import { renewLeaseTransition } from '../../session/transitions/index.js';
import type { RuntimeContext } from '../runtime-context.js';

/**
 * Renews a running segment's lease every third of its length while the segment
 * works, so a tool that takes longer than the lease keeps the session, and a
 * process that dies lets it go within one lease. When another run has taken the
 * session over, it calls `onLost` once: the segment stops, and its end will be refused.
 */
export class LeaseKeeper {
  private readonly cancel: Cancel;
  private renewing = false;
  /** The end of the latest lease the store confirmed. */
  private confirmedUntil: number;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly sessionId: string,
    private readonly invocationId: string,
    readonly lease: Lease,
    private readonly onLost: () => void,
  ) {
    this.confirmedUntil = lease.until;
    this.cancel = ctx.clock.every(ctx.leaseMs / 3, () => {
      void this.renew();
    });
  }

  /**
   * Why the segment was stopped (`onLost` was called): `lost` to another run, or
   * `unconfirmed` past its end.
   */
  stopped?: 'lost' | 'unconfirmed';

  stop(): void {
    this.cancel();
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.stopped) return;
    this.renewing = true;
    const lease = { owner: this.lease.owner, until: this.ctx.clock.now() + this.ctx.leaseMs };
    try {
      await this.ctx.store.apply(this.sessionId, renewLeaseTransition, [this.invocationId, lease]);
      this.confirmedUntil = lease.until;
    } catch (error) {
      // Lost, or no longer known to hold: past its confirmed lease another instance may
      // take the run over, so this segment stops rather than run on beside it.
      if (isHoldpointError(error, 'LEASE_LOST') || this.ctx.clock.now() >= this.confirmedUntil) {
        this.stopped = isHoldpointError(error, 'LEASE_LOST') ? 'lost' : 'unconfirmed';
        this.stop();
        this.onLost();
      } else {
        // Renewed at the next beat; until the lease lapses nobody may take the session.
        this.ctx
          .log(this.sessionId, this.invocationId)
          .warn({ err: error }, 'lease renewal failed');
      }
    } finally {
      this.renewing = false;
    }
  }
}
