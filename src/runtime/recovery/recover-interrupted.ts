import { recoverRun } from '../commands/recover-run.js';
import type { RuntimeContext } from '../runtime-context.js';

/** How many interrupted runs one instance drives at once. */
const MAX_RECOVERING = 4;

/**
 * Resumes interrupted runs (their process stopped and their lease lapsed), longest
 * interrupted first, at most a few at a time in this instance; each one runs on in the
 * background. Another instance cannot drive the same run: taking it over is a
 * transition that only the first one wins. `recovering` holds the runs this instance
 * is driving. Returns how many it started.
 */
export async function recoverInterrupted(
  ctx: RuntimeContext,
  recovering: Set<string>,
): Promise<number> {
  const room = MAX_RECOVERING - recovering.size;
  if (room <= 0) return 0;
  const page = await ctx.store.listInterrupted({ limit: room + recovering.size }, ctx.clock.now());
  let started = 0;
  for (const { run, meta } of page.items) {
    if (!run || recovering.has(run.invocationId) || recovering.size >= MAX_RECOVERING) continue;
    const { invocationId } = run;
    recovering.add(invocationId);
    started += 1;
    recoverRun(ctx, { invocationId, actor: 'system' })
      .catch((error: unknown) => {
        ctx.log(meta.sessionId, invocationId).warn({ err: error }, 'interrupted run not recovered');
      })
      .finally(() => recovering.delete(invocationId));
  }
  return started;
}
