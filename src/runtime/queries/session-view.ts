import type { Session } from '@google/adk';
import { decidesOn } from '../../core/approvers.js';
import { sessionNotFound } from '../../core/errors.js';
import { type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import type { ApprovalRequest, Pause, RunRecord, SessionMeta } from '../../core/types.js';
import type { SessionSnapshot } from '../../store/store.js';
import { undecidedApprovals } from '../../store/transitions.js';
import { expirePause } from '../expiry/expire-due.js';
import type { RuntimeContext } from '../runtime-context.js';
import { runView } from './runs.js';

/** What a session looks like from outside. */
export interface SessionView {
  meta: SessionMeta;
  state: Record<string, unknown>;
  run?: RunRecord;
  /** The current run's latest pause, if it paused. */
  pause?: Pause;
  pendingApprovals: ApprovalRequest[];
}

/**
 * The session's snapshot as of now: a pause that is past its time is expired (and
 * audited) first, so nobody is shown an approval that can no longer count.
 */
export async function currentSnapshot(
  ctx: RuntimeContext,
  sessionId: string,
): Promise<SessionSnapshot> {
  const snapshot = await ctx.requireSnapshot(sessionId);
  const { meta, pause } = snapshot;
  if (meta.status !== 'paused' || !pause || pause.expiresAt > ctx.clock.now()) return snapshot;
  await expirePause(ctx, sessionId);
  return ctx.requireSnapshot(sessionId);
}

/**
 * The session's meta, state, current run and pending approvals, with its ADK session;
 * for its owner, an admin, or someone its pause asks to decide (to see what they decide).
 */
export async function sessionView(
  ctx: RuntimeContext,
  sessionId: string,
  by: Principal,
): Promise<{ view: SessionView; session: Session }> {
  const read = await ctx.requireSnapshot(sessionId);
  const asked = !!read.pause && decidesOn(read.pause, by, read.run?.userId);
  requireOwnerOrAdmin(by, read.meta.userId, 'read this session', asked);
  const snapshot = await currentSnapshot(ctx, sessionId);
  const { meta, run, pause } = snapshot;
  const session = await ctx.store.loadSession(sessionId, meta.app, meta.userId);
  if (!session) throw sessionNotFound(sessionId);
  const current = pause?.invocationId === meta.invocationId ? pause : undefined;
  return {
    view: {
      meta,
      state: session.state,
      run: run && runView(run, snapshot, ctx.clock.now()),
      pause: current,
      pendingApprovals: undecidedApprovals(current),
    },
    session,
  };
}
