import { z } from 'zod';
import { HoldpointError, runNotFound } from '../../core/errors.js';
import { ADMIN_ROLE, hasRole, type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import type { RunRecord } from '../../core/types.js';
import { isInterrupted } from '../../session/transitions/index.js';
import type { SessionSnapshot } from '../../store/store.js';
import type { RuntimeContext } from '../runtime-context.js';
import { decodeCursor, encodeCursor, PAGE_FIELDS } from './page-cursor.js';

/**
 * A run as clients see it. `status` is `interrupted` while the run's process has
 * stopped and its lease lapsed; `leaseUntil` is, while it runs, until when its
 * segment holds the session.
 */
export interface RunView extends RunRecord {
  leaseUntil?: number;
}

/** `run` as of `now`: `interrupted` once it runs on a lapsed lease. */
export function runView(run: RunRecord, snapshot: SessionSnapshot, now: number): RunView {
  const { meta } = snapshot;
  if (meta.invocationId !== run.invocationId || meta.status !== 'running') return run;
  const status = isInterrupted(meta, now) ? 'interrupted' : run.status;
  return { ...run, status, leaseUntil: meta.lease?.until };
}

/**
 * A run by its invocation id, for its session's owner or an admin; RUN_NOT_FOUND when
 * no stored session holds it.
 */
export async function getRun(
  ctx: RuntimeContext,
  invocationId: string,
  by: Principal,
): Promise<RunView> {
  const sessionId = await ctx.requireRunSession(invocationId);
  const [snapshot, run] = await Promise.all([
    ctx.requireSnapshot(sessionId),
    ctx.store.getRun(sessionId, invocationId),
  ]);
  requireOwnerOrAdmin(by, snapshot.meta.userId, 'read this run');
  if (!run) throw runNotFound(invocationId);
  return runView(run, snapshot, ctx.clock.now());
}

/** Which runs to list: those interrupted (the only list kept), a page at a time. */
export const runsQuery = z.strictObject({
  status: z.literal('interrupted'),
  ...PAGE_FIELDS,
});
export type RunsQuery = z.input<typeof runsQuery>;

/** A page of runs; `nextCursor` when there is more. */
export interface RunsPage {
  runs: RunView[];
  nextCursor?: string;
}

/**
 * Interrupted runs, longest interrupted first, read from the index of running
 * sessions: the cost is the page, not the number of sessions. Everyone's runs: for
 * admins only.
 */
export async function listRuns(
  ctx: RuntimeContext,
  query: z.output<typeof runsQuery>,
  by: Principal,
): Promise<RunsPage> {
  const { limit, cursor } = query;
  if (!hasRole(by, ADMIN_ROLE)) {
    throw new HoldpointError('FORBIDDEN', 'Listing interrupted runs needs the admin role.', {
      principal: by.id,
    });
  }
  const now = ctx.clock.now();
  const page = await ctx.store.listInterrupted(
    { limit, after: cursor === undefined ? undefined : decodeCursor(cursor) },
    now,
  );
  const runs = page.items.flatMap((snapshot) =>
    snapshot.run ? [runView(snapshot.run, snapshot, now)] : [],
  );
  return { runs, nextCursor: page.next && encodeCursor(page.next) };
}
