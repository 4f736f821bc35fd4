import { randomUUID } from 'node:crypto';
import type { Cancel } from '../../core/clock.js';
import { recoverInterrupted } from '../recovery/recover-interrupted.js';
import type { RuntimeContext } from '../runtime-context.js';
import { expireDue } from './expire-due.js';

/**
 * Records pauses that pass their time even when nobody asks about them, with
 * `recover` resumes runs whose process stopped, and sends the notifications due. Each beat reads only what is due;
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
        if (this.recover) await recoverInterrupted(this.ctx, this.recovering, this.notBefore);
        // Retries, and deliveries other processes' commits wrote (claims keep it once).
        await this.ctx.dispatcher?.dispatch();
      }
    } catch (error) {
      this.ctx.logger.warn({ err: error }, 'sweep failed');
    } finally {
      this.running = false;
    }
  }
}
