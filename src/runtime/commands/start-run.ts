import { randomUUID } from 'node:crypto';
import type { AgentApp } from '../../agents/agent-app.js';
import { HoldpointError } from '../../core/errors.js';
import type { RunRecord } from '../../core/types.js';
import { validate } from '../../core/validate.js';
import { type StartRequest, startRequest } from '../requests.js';
import type { RunEventSink } from '../run-event.js';
import type { RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';
import { runSegment } from '../segment/run-segment.js';

/**
 * Starts a run for a user's message: on a new session (created already held by the
 * run), or on `sessionId` once the run takes it (refused while it is paused or
 * another run holds it).
 */
export async function startRun(
  ctx: RuntimeContext,
  request: StartRequest,
  sink?: RunEventSink,
): Promise<RunOutcome> {
  const { query, userId, app: appName, sessionId } = validate(startRequest, request);
  const now = ctx.clock.now();
  const lease = ctx.newLease(now);
  const newRun = (id: string, app: AgentApp): RunRecord => {
    const shape = ctx.shapeOf(app);
    return {
      invocationId: `inv-${randomUUID()}`,
      sessionId: id,
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
  if (sessionId === undefined) {
    app = ctx.requireApp(appName ?? ctx.options.defaultApp);
    run = newRun(randomUUID(), app);
    await ctx.store.createSession(
      { sessionId: run.sessionId, app: app.name, userId, createdAt: now },
      { run, lease },
    );
  } else {
    const { meta } = await ctx.requireSnapshot(sessionId);
    if (appName !== undefined && appName !== meta.app) {
      throw new HoldpointError(
        'APP_MISMATCH',
        `Session ${sessionId} belongs to app ${meta.app}, not ${appName}.`,
      );
    }
    app = ctx.requireApp(meta.app);
    owner = meta.userId;
    run = newRun(sessionId, app);
    await ctx.store.beginRun(run, lease);
  }
  return runSegment(ctx, {
    app,
    sessionId: run.sessionId,
    userId: owner,
    invocationId: run.invocationId,
    lease,
    messages: [{ role: 'user', parts: [{ text: query }] }],
    sink,
  });
}
