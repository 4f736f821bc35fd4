import type { Cancel } from '../../core/clock.js';
import { settleHoldTransition } from '../../session/transitions/index.js';
import { holdChannel, type Unsubscribe } from '../../store/run-relay.js';
import type { HoldState } from '../../store/store.js';
import type { RuntimeContext } from '../runtime-context.js';

/** How a hold ended: the pause handed to its segment, or released to wait stored. */
type Settled = Exclude<HoldState, { state: 'waiting' }>;

/**
 * A segment's wait, in place, for the decision on the pause it stored while a tool
 * awaits (`waitForApproval`). Opened before the pause is stored, so no wake-up is
 * missed. The relay only wakes it: what happened is read from the store, where the
 * decision hands the session to this segment (`settleHoldTransition`), until the
 * hold's end, when the pause is released to be resumed as any other.
 */
export class PauseHold {
  private wake?: () => void;
  private woken = false;
  /** The process stops: the hold ends at once. */
  private releasing = false;

  private constructor(private readonly unsubscribe: Unsubscribe) {}

  /** Listens for wake-ups of the session's holder. */
  static async open(ctx: RuntimeContext, sessionId: string): Promise<PauseHold> {
    let hold: PauseHold | undefined;
    const unsubscribe = await ctx.store.relay.subscribe(holdChannel(sessionId), () =>
      hold?.rouse(),
    );
    hold = new PauseHold(unsubscribe);
    return hold;
  }

  private rouse(): void {
    this.woken = true;
    this.wake?.();
  }

  /**
   * Waits until the pause was handed to `owner` (its decision arrived) or the hold
   * ended at `until` (released, or cancelled or expired meanwhile), or at once when
   * the process stops (`RuntimeContext.holds`). A store that does not answer ends the
   * hold: a decision that handed the session over then leaves it to recovery once the
   * lease lapses, as after a crash.
   */
  settle(
    ctx: RuntimeContext,
    sessionId: string,
    invocationId: string,
    owner: string,
    until: number,
  ): Promise<Settled> {
    const settled = this.waitAndSettle(ctx, sessionId, invocationId, owner, until);
    const release = async () => {
      this.releasing = true;
      this.rouse();
      await settled;
    };
    ctx.holds.add(release);
    return settled.finally(() => ctx.holds.delete(release));
  }

  private async waitAndSettle(
    ctx: RuntimeContext,
    sessionId: string,
    invocationId: string,
    owner: string,
    until: number,
  ): Promise<Settled> {
    let cancelTimer: Cancel | undefined;
    try {
      for (;;) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          if (this.woken) resolve();
          cancelTimer ??= ctx.clock.every(Math.max(1, until - ctx.clock.now()), () => {
            cancelTimer?.();
            cancelTimer = undefined;
            this.rouse();
          });
        });
        this.woken = false;
        const now = ctx.clock.now();
        const state = await ctx.store.apply(sessionId, settleHoldTransition, [
          invocationId,
          owner,
          now,
          this.releasing,
        ]);
        if (state.state !== 'waiting') return state;
      }
    } catch (error) {
      ctx.log(sessionId, invocationId).warn({ err: error }, 'held pause could not be settled');
      return { state: 'released' };
    } finally {
      cancelTimer?.();
      await this.unsubscribe().catch(() => {});
    }
  }

  /** Stops listening, for a hold that never began. */
  close(): Promise<void> {
    return this.unsubscribe().catch(() => {});
  }
}
