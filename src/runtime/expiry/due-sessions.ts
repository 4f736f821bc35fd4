import type { RuntimeContext } from '../runtime-context.js';

/** How many due sessions one read of an index returns. */
const BATCH = 100;
/** Reads per sweep: what is left waits for the next beat. */
const MAX_BATCHES = 20;

/**
 * Calls `each` once for every session an index lists as due (`list(limit)`: at most
 * `limit` of them, earliest first), in bounded batches. One that fails (unreadable,
 * changing, its app not served here) is logged with `failure` and skipped: it never
 * stops the others, and since it stays in the index, later reads of this pass skip it.
 */
export async function forEachDue(
  ctx: RuntimeContext,
  list: (limit: number) => Promise<string[]>,
  each: (sessionId: string) => Promise<void>,
  failure: string,
): Promise<void> {
  // Sessions this pass already tried: one that failed is still listed.
  const tried = new Set<string>();
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const limit = BATCH + tried.size;
    const listed = await list(limit);
    const due = listed.filter((sessionId) => !tried.has(sessionId));
    for (const sessionId of due) {
      tried.add(sessionId);
      try {
        await each(sessionId);
      } catch (error) {
        ctx.log(sessionId).warn({ err: error }, failure);
      }
    }
    if (due.length === 0 || listed.length < limit) break;
  }
}
