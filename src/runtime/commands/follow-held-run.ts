import type { Cancel } from '../../core/clock.js';
import { type ErrorCode, HoldpointError, isHoldpointError } from '../../core/errors.js';
import { SYSTEM } from '../../core/principal.js';
import { isInterrupted } from '../../session/transitions/index.js';
import { holdChannel, type Unsubscribe } from '../../store/run-relay.js';
import { runState } from '../queries/run-state.js';
import type { RunEvent, RunEventSink } from '../run-event.js';
import type { RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';
import { recoverRun } from './recover-run.js';

/**
 * A decider's view of a run that a held segment goes on with (its decision was
 * `handed` to the segment waiting in place, in this process or another). Listens to
 * the session's relay before deciding, so nothing of the run's next part is missed;
 * hands its events to the decider's sink from the segment's `run-started` on; and
 * answers with its outcome, like a resume that ran the segment itself.
 */
export class HeldRunFollower {
  private started = false;
  private settle?: (outcome: RunOutcome | HoldpointError) => void;
  private result?: RunOutcome | HoldpointError;

  private constructor(
    private readonly sink: RunEventSink | undefined,
    private unsubscribe?: Unsubscribe,
  ) {}

  /** Listens to the session's events, before the decision is recorded. */
  static async listen(
    ctx: RuntimeContext,
    sessionId: string,
    sink: RunEventSink | undefined,
  ): Promise<HeldRunFollower> {
    let follower: HeldRunFollower | undefined;
    const unsubscribe = await ctx.store.relay.subscribe(sessionId, (message) =>
      follower?.onEvent(message as RunEvent),
    );
    follower = new HeldRunFollower(sink, unsubscribe);
    return follower;
  }

  private onEvent(event: RunEvent): void {
    if (this.result) return;
    if (event.type === 'run-started') this.started = event.resumed;
    if (!this.started) return;
    this.sink?.(event);
    if (event.type === 'outcome') this.finish(event.outcome);
    if (event.type === 'failed') {
      this.finish(
        new HoldpointError(event.code as ErrorCode, event.message, {
          session_id: event.sessionId,
          invocation_id: event.invocationId,
        }),
      );
    }
  }

  private finish(result: RunOutcome | HoldpointError): void {
    this.result ??= result;
    this.settle?.(this.result);
  }

  /**
   * Wakes the held segment, then waits for the outcome of what it runs. Should the
   * segment stop without a word (its process died: the lease it was handed lapses),
   * the run is recovered here, on the decision's behalf, and its outcome answers; if
   * someone else recovered it first, the run's state in the store answers.
   */
  async outcome(
    ctx: RuntimeContext,
    sessionId: string,
    invocationId: string,
    owner: string,
  ): Promise<RunOutcome> {
    ctx.store.relay.publish(holdChannel(sessionId), { type: 'handed', invocationId });
    let cancel: Cancel | undefined;
    try {
      const result = await new Promise<RunOutcome | HoldpointError | 'gone' | undefined>(
        (resolve) => {
          this.settle = resolve;
          if (this.result) resolve(this.result);
          cancel = ctx.clock.every(ctx.leaseMs, () => {
            void ctx.store
              .getSnapshot(sessionId)
              .then((snapshot) => {
                const meta = snapshot?.meta;
                const ours = meta?.status === 'running' && meta.invocationId === invocationId;
                if (ours && isInterrupted(meta, ctx.clock.now())) resolve('gone');
                else if (!ours || meta.lease?.owner !== owner) resolve(undefined);
              })
              .catch(() => {});
          });
        },
      );
      if (result instanceof HoldpointError) throw result;
      if (result === 'gone') {
        await this.stop();
        return await recoverRun(ctx, { invocationId }, SYSTEM, this.sink).catch(
          (error: unknown) => {
            if (isHoldpointError(error, 'RUN_NOT_INTERRUPTED')) {
              return runState(ctx, sessionId, invocationId);
            }
            throw error;
          },
        );
      }
      return result ?? (await runState(ctx, sessionId, invocationId));
    } finally {
      cancel?.();
      await this.stop();
    }
  }

  /** Stops listening (the decision was not handed over, or failed). */
  async stop(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.().catch(() => {});
  }
}
