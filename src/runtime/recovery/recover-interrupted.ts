import { SYSTEM } from '../../core/principal.js';
import { recoverRun } from '../commands/recover-run.js';
import type { RuntimeContext } from '../runtime-context.js';

/** How many interrupted runs one instance drives at once. */
const MAX_RECOVERING = 4;
/** How many interrupted runs one beat reads, to get past those that cannot go on yet. */
const PAGE = 50;
/** How long a run that could not be recovered is left alone before the next try. */
const RETRY_AFTER_MS = 60_000;

/**
 * Resumes interrupted runs (their process stopped and their lease lapsed), longest
 * interrupted first, at most a few at a time in this instance; each one runs on in the
 * background. Another instance cannot drive the same run: taking it over is a
 * transition that only the first one wins. `recovering` holds the runs this instance
 * is driving, `notBefore` those that failed and when to try them again. Returns how
 * many it started.
 */
export async function recoverInterrupted(
  ctx: RuntimeContext,
  recovering: Set<string>,
  notBefore: Map<string, number> = new Map(),
): Promise<number> {
  if (recovering.size >= MAX_RECOVERING) return 0;
  const now = ctx.clock.now();
  for (const [invocationId, at] of notBefore) if (at <= now) notBefore.delete(invocationId);
  const page = await ctx.store.listInterrupted({ limit: PAGE }, now);
  let started = 0;
  for (const { run, meta } of page.items) {
    if (!run || recovering.has(run.invocationId) || notBefore.has(run.invocationId)) continue;
    if (recovering.size >= MAX_RECOVERING) break;
    const { invocationId } = run;
    recovering.add(invocationId);
    started += 1;
    recoverRun(ctx, { invocationId }, SYSTEM)
      .catch((error: unknown) => {
        // One that cannot go on (its app changed, an effect still locked) waits its
        // turn instead of holding up the others every beat.
        notBefore.set(invocationId, ctx.clock.now() + RETRY_AFTER_MS);
        ctx.log(meta.sessionId, invocationId).warn({ err: error }, 'interrupted run not recovered');
      })
      .finally(() => recovering.delete(invocationId));
  }
  return started;
}
