import type { Session } from '@google/adk';
import { sessionNotFound } from '../../core/errors.js';
import { type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import type { ApprovalRequest, Pause, RunRecord, SessionMeta } from '../../core/types.js';
import { decidesOn } from '../../session/decision/approvers.js';
import { mayDecideNow, mayNeedDelegators } from '../../session/decision/may-decide.js';
import { undecidedApprovals } from '../../session/transitions/index.js';
import type { SessionSnapshot } from '../../store/store.js';
import { expirePause } from '../expiry/expire-due.js';
import type { RuntimeContext } from '../runtime-context.js';
import { delegatorsOf } from './delegators.js';
import { runView } from './runs.js';

/** What a session looks like from outside. */
export interface SessionView {
  meta: SessionMeta;
  state: Record<string, unknown>;
  run?: RunRecord;
  /** The current run's latest pause, if it paused. */
  pause?: Pause;
  pendingApprovals: ApprovalRequest[];
  /**
   * The ids of `pendingApprovals` the reader may decide now (`mayDecideNow`): the others
   * wait for someone else. None for Holdpoint itself.
   */
  decidable: string[];
}

/**
 * The session's snapshot as of now (from `read`, when it was just read): a pause that
 * is past its time is expired (and audited) first, so nobody is shown an approval that
 * can no longer count.
 */
export async function currentSnapshot(
  ctx: RuntimeContext,
  sessionId: string,
  read?: SessionSnapshot,
): Promise<SessionSnapshot> {
  const snapshot = read ?? (await ctx.requireSnapshot(sessionId));
  const { meta, pause } = snapshot;
  if (meta.status !== 'paused' || !pause || pause.expiresAt > ctx.clock.now()) return snapshot;
  await expirePause(ctx, sessionId);
  return ctx.requireSnapshot(sessionId);
}

/**
 * Refuses `by` unless it may follow the session: its owner, an admin, or someone its
 * pause asks to decide (to see what they decide), themselves or for one of
 * `delegators` (people out of office who left their approvals to `by`).
 */
export function requireSessionReader(
  snapshot: SessionSnapshot,
  by: Principal,
  what: string,
  delegators: readonly string[] = [],
) {
  const { meta, pause, run } = snapshot;
  const deciders = [by, ...delegators.map((id): Principal => ({ id, roles: [] }))];
  const asked = !!pause && deciders.some((who) => decidesOn(pause, who, run?.userId));
  requireOwnerOrAdmin(by, meta.userId, what, asked);
}

/**
 * The session's meta, state, current run and pending approvals, with its ADK session;
 * for those `requireSessionReader` lets read it.
 */
export async function sessionView(
  ctx: RuntimeContext,
  sessionId: string,
  by: Principal,
): Promise<{ view: SessionView; session: Session }> {
  const read = await ctx.requireSnapshot(sessionId);
  const delegators = mayNeedDelegators(read.pause, by, read.run?.userId)
    ? await delegatorsOf(ctx, by, ctx.clock.now())
    : [];
  requireSessionReader(read, by, 'read this session', delegators);
  const snapshot = await currentSnapshot(ctx, sessionId, read);
  const { meta, run, pause } = snapshot;
  const session = await ctx.store.loadSession(sessionId, meta.app, meta.userId);
  if (!session) throw sessionNotFound(sessionId);
  const current = pause?.invocationId === meta.invocationId ? pause : undefined;
  const pendingApprovals = undecidedApprovals(current);
  return {
    view: {
      meta,
      state: session.state,
      run: run && runView(run, snapshot, ctx.clock.now()),
      pause: current,
      pendingApprovals,
      decidable: current
        ? pendingApprovals
            .filter((approval) => mayDecideNow(current, approval, by, run?.userId, delegators))
            .map((approval) => approval.approvalId)
        : [],
    },
    session,
  };
}

/** The session's meta, state, current run and pending approvals: for its owner or an admin. */
export async function getSession(
  ctx: RuntimeContext,
  sessionId: string,
  by: Principal,
): Promise<SessionView> {
  return (await sessionView(ctx, sessionId, by)).view;
}

/**
 * Who owns a session; undefined when there is no such session. For the development
 * identity only (a request that names nobody but a session acts as its owner):
 * nothing else learns an owner without reading the session as someone allowed to.
 */
export async function sessionOwner(
  ctx: RuntimeContext,
  sessionId: string,
): Promise<string | undefined> {
  const snapshot = await ctx.store.getSnapshot(sessionId);
  return snapshot?.meta.userId;
}
