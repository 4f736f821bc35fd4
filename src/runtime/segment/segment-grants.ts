import { GrantedCalls } from '../../agents/granted-calls.js';
import { hashArgs } from '../../core/hash.js';
import { allowedByGrantTransition } from '../../session/transitions/index.js';
import type { RuntimeContext } from '../runtime-context.js';
import type { SegmentStart } from './segment-start.js';
import type { StopCause } from './stop-cause.js';

/**
 * The segment's GrantedCalls plugin, when its app lets some tool's deciders make grants
 * (otherwise none: nothing is read for any call). It reads the session owner's grants in
 * force, and records a call a grant allows with an `allowed_by_grant` line under the
 * segment's lease before the tool runs (a line that cannot be stored, LEASE_LOST
 * included, stops the call and the segment, as `stopCause`).
 */
export function segmentGrants(
  ctx: RuntimeContext,
  start: SegmentStart,
  stopCause: StopCause,
  named: ReadonlySet<string>,
): GrantedCalls | undefined {
  const { app, sessionId, userId, invocationId, lease } = start;
  const rules = app.decisionRules ?? {};
  if (!Object.values(rules).some((r) => r.grants)) return undefined;
  return new GrantedCalls({
    app: app.name,
    sessionId,
    userId,
    rules,
    named,
    now: () => ctx.clock.now(),
    inForce: (toolName, now) => ctx.store.grants.inForce(userId, app.name, toolName, now),
    allow: async (grant, call, now) => {
      const allowed = {
        invocationId,
        lease,
        toolName: call.toolName,
        argsHash: hashArgs(call.args),
      };
      try {
        // On the segment's trail, so its next commit goes on from this one.
        await ctx.store.apply(
          sessionId,
          allowedByGrantTransition,
          [allowed, grant, now],
          start.trail,
        );
      } catch (error) {
        // As a lease lost: the segment stops at once, the tool does not run (ADK would
        // take the error for the model's and ask it again).
        stopCause.error ??= error;
        stopCause.halt?.();
        throw error;
      }
      ctx
        .log(sessionId, invocationId)
        .info({ grant_id: grant.grantId, tool: call.toolName }, 'call allowed by a grant');
    },
  });
}
