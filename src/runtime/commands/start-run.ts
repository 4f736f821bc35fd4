import { createHash, randomUUID } from 'node:crypto';
import type { AgentApp } from '../../agents/agent-app.js';
import { HoldpointError, withRun } from '../../core/errors.js';
import { type Principal, requireOwnerOrAdmin } from '../../core/principal.js';
import type { RunRecord } from '../../core/types.js';
import { beginRunTransition } from '../../session/transitions/index.js';
import type { SessionTrail } from '../../store/store.js';
import { runState } from '../queries/run-state.js';
import type { StartRequest } from '../requests.js';
import type { RunEventSink } from '../run-event.js';
import type { RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';
import { runSegment } from '../segment/run-segment.js';

/** A UUID-shaped id that follows from `seed`: a retried request finds what it made. */
function idFrom(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Starts a run for a user's message: on a new session (created already held by the
 * run; its id `newSessionId` when given), or on `sessionId` once the run takes it (refused while it is paused or
 * another run holds it); only the session's owner or an admin posts to it. With a `requestId` the new session's and the run's ids
 * follow from it, so the same request made again (its first reply was lost) finds
 * the run it started and is answered with that run's state instead of starting another.
 */
export async function startRun(
  ctx: RuntimeContext,
  request: StartRequest,
  by: Principal,
  sink?: RunEventSink,
): Promise<RunOutcome> {
  const { query, app: appName, sessionId, newSessionId, requestId } = request;
  const userId = by.id;
  const invocationId = `inv-${requestId ? idFrom(`run\n${requestId}`) : randomUUID()}`;
  const targetId =
    sessionId ?? newSessionId ?? (requestId ? idFrom(`session\n${requestId}`) : randomUUID());
  const started = requestId ? await ctx.store.getRun(targetId, invocationId) : undefined;
  if (started) {
    requireOwnerOrAdmin(by, started.userId, 'read this run');
    return runState(ctx, targetId, invocationId);
  }
  const now = ctx.clock.now();
  const lease = ctx.newLease(now);
  const newRun = (app: AgentApp): RunRecord => {
    const shape = ctx.shapeOf(app);
    return {
      invocationId,
      sessionId: targetId,
      app: app.name,
      userId,
      query,
      status: 'running',
      appFingerprint: shape.fingerprint,
      appShape: shape.parts,
      startedAt: now,
      updatedAt: now,
    };
  };
  let run: RunRecord;
  let app: AgentApp;
  /** The session's owner: who created it, whoever sends this message. */
  let owner = userId;
  const trail: SessionTrail = {};
  try {
    if (sessionId === undefined) {
      app = ctx.requireApp(appName ?? ctx.options.defaultApp);
      run = newRun(app);
      await ctx.store.createSession(
        { sessionId: targetId, app: app.name, userId, createdAt: now },
        { run, lease },
        trail,
      );
    } else {
      const snapshot = await ctx.requireSnapshot(sessionId);
      const { meta } = snapshot;
      // The run takes the session as just read: its commit reads it no second time.
      trail.snapshot = snapshot;
      requireOwnerOrAdmin(by, meta.userId, 'post to this session');
      if (appName !== undefined && appName !== meta.app) {
        throw new HoldpointError(
          'APP_MISMATCH',
          `Session ${sessionId} belongs to app ${meta.app}, not ${appName}.`,
        );
      }
      app = ctx.requireApp(meta.app);
      owner = meta.userId;
      run = newRun(app);
      await ctx.store.apply(run.sessionId, beginRunTransition, [run, lease], trail);
    }
  } catch (error) {
    throw withRun(error, invocationId);
  }
  return runSegment(ctx, {
    app,
    sessionId: run.sessionId,
    userId: owner,
    invocationId: run.invocationId,
    lease,
    messages: [{ role: 'user', parts: [{ text: query }] }],
    sink,
    trail,
  });
}
