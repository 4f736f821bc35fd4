import type { Grant } from '../../core/grants.js';
import type { Pause, SessionMeta } from '../../core/types.js';
import type { DecisionBatch } from '../../store/store.js';
import type { RuntimeContext } from '../runtime-context.js';

/**
 * Stores the grants the decisions of one request made, once their decisions are stored
 * (`pause` as the decision's commit left it): the ones `batch` asked for, and, for a
 * request recorded before (same `requestId`), the ones it recorded then (`put` keeps a
 * grant once). A grant is the session owner's, on the approval's tool, granted by its
 * decider. One that cannot be stored is lost (logged): a permission is never wider than
 * what was stored, and the run goes on.
 */
export async function storeGrants(
  ctx: RuntimeContext,
  meta: SessionMeta,
  pause: Pause,
  batch: DecisionBatch,
  requestId: string | undefined,
): Promise<void> {
  const asked = new Set(
    'decisions' in batch ? batch.decisions.flatMap((d) => (d.grant ? [d.grant.grantId] : [])) : [],
  );
  for (const decision of pause.decisions) {
    const { grant } = decision;
    if (!grant) continue;
    if (
      !asked.has(grant.grantId) &&
      (requestId === undefined || decision.requestId !== requestId)
    ) {
      continue;
    }
    const approval = pause.approvals.find((a) => a.approvalId === decision.approvalId);
    if (!approval) continue;
    const stored: Grant = {
      grantId: grant.grantId,
      app: meta.app,
      toolName: approval.toolName,
      userId: meta.userId,
      scope: grant.scope,
      sessionId: meta.sessionId,
      approvalId: approval.approvalId,
      ...(grant.match && { match: grant.match }),
      grantedBy: decision.decidedBy,
      createdAt: decision.at,
      expiresAt: grant.expiresAt,
    };
    try {
      await ctx.store.grants.put(stored);
    } catch (error) {
      ctx
        .log(meta.sessionId, pause.invocationId)
        .warn({ err: error, grant_id: grant.grantId }, 'grant not stored: it does not apply');
    }
  }
}
