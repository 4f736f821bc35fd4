import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest, Pause } from '../../core/types.js';
import { mayDecideNow, mayNeedDelegators } from '../../session/decision/may-decide.js';
import type { RuntimeContext } from '../runtime-context.js';
import { delegatorsOf } from './delegators.js';
import { currentSnapshot, requireSessionReader } from './session-view.js';

/** One approval as of now, with the pause that asked it (whatever became of that pause). */
export interface ApprovalLookup {
  sessionId: string;
  app: string;
  /** The pause holding the approval: its status, decisions and expiry. */
  pause: Pause;
  approval: ApprovalRequest;
  /** Whether the reader may decide it now (never for Holdpoint itself). */
  canDecide: boolean;
  /** The runtime's clock when it was read, for "time left". */
  now: number;
}

/**
 * The approval `approvalId` and its pause, read by `by` (who must be allowed to read the
 * session); a pause past its time is expired first, as every read does. Undefined when
 * no session holds it, or its session has moved on to a later pause.
 */
export async function getApproval(
  ctx: RuntimeContext,
  approvalId: string,
  by: Principal,
): Promise<ApprovalLookup | undefined> {
  const sessionId = await ctx.store.findApproval(approvalId);
  if (!sessionId) return undefined;
  const read = await ctx.requireSnapshot(sessionId);
  const delegators = mayNeedDelegators(read.pause, by, read.run?.userId)
    ? await delegatorsOf(ctx, by, ctx.clock.now())
    : [];
  requireSessionReader(read, by, 'read this session', delegators);
  const { meta, run, pause } = await currentSnapshot(ctx, sessionId, read);
  const approval = pause?.approvals.find((a) => a.approvalId === approvalId);
  if (!pause || !approval) return undefined;
  const canDecide =
    pause.status === 'pending' && mayDecideNow(pause, approval, by, run?.userId, delegators);
  return { sessionId, app: meta.app, pause, approval, canDecide, now: ctx.clock.now() };
}
