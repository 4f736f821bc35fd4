import { randomUUID } from 'node:crypto';
import type { Cancel } from '../../core/clock.js';
import { isStoreAway } from '../../core/errors.js';
import { recoverInterrupted } from '../recovery/recover-interrupted.js';
import type { RuntimeContext } from '../runtime-context.js';
import { expireDue } from './expire-due.js';
import { applySlaDue } from './sla-due.js';

/**
 * Records removed past their retention per table per beat at most: a store that fell
 * behind (a long outage, a lowered retention) catches up over beats instead of one
 * beat holding the database.
 */
export const PURGE_PER_BEAT = 500;

/**
 * Records pauses that pass their time even when nobody asks about them, takes the
 * approvals' SLA steps that came due (reminders, escalations, deadlines), with
 * `recover` resumes runs whose process stopped, sends the notifications due, and has the
 * store remove what outlived its retention (`purgeExpired`: SQL stores; memory and Redis
 * expire records by themselves). Each beat reads only what is due;
 * instances sharing a store take turns (the store's sweep turn, `takeSweepTurn`), and a beat is
 * skipped while the previous sweep still runs.
 */
export class ExpirySweeper {
  private readonly owner = `sweeper-${randomUUID()}`;
  private readonly recovering = new Set<string>();
  private readonly notBefore = new Map<string, number>();
  private running = false;
  private cancel?: Cancel;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly intervalMs: number,
    private readonly recover: boolean,
  ) {}

  start(): void {
    this.cancel ??= this.ctx.clock.every(this.intervalMs, () => {
      void this.sweep();
    });
  }

  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }

  /** One beat; resolves when it is done (or skipped); recovered runs go on in the background. */
  async sweep(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      // Held for two beats, so the holder keeps it from one beat to the next.
      if (await this.ctx.store.takeSweepTurn(this.owner, 2 * this.intervalMs)) {
        await expireDue(this.ctx);
        await applySlaDue(this.ctx);
        if (this.recover) await recoverInterrupted(this.ctx, this.recovering, this.notBefore);
        await this.ctx.store.purgeExpired(this.ctx.clock.now(), PURGE_PER_BEAT);
        // Retries, and deliveries other processes' commits wrote (claims keep each once);
        // in the background, so a slow receiver never holds up the sweep.
        this.ctx.dispatcher?.nudge();
      }
    } catch (error) {
      // A store that is away is said in one line each beat (its code and why), not with a
      // stack: it is the store's state, not a fault of the sweep's code.
      if (isStoreAway(error)) {
        this.ctx.logger.warn({ code: error.code }, `sweep skipped: ${error.message}`);
      } else {
        this.ctx.logger.warn({ err: error }, 'sweep failed');
      }
    } finally {
      this.running = false;
    }
  }
}
