import { randomUUID } from 'node:crypto';
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
  const newRun = (id: string, app: string): RunRecord => ({
    invocationId: `inv-${randomUUID()}`,
    sessionId: id,
    app,
    userId,
    query,
    status: 'running',
    startedAt: now,
    updatedAt: now,
  });
  let run: RunRecord;
  /** The session's owner: who created it, whoever sends this message. */
  let owner = userId;
  if (sessionId === undefined) {
    const app = ctx.requireApp(appName ?? ctx.options.defaultApp);
    run = newRun(randomUUID(), app.name);
    await ctx.store.createSession(
      { sessionId: run.sessionId, app: app.name, userId, createdAt: now },
      { run, lease },
    );
  } else {
    const snapshot = await ctx.store.getSnapshot(sessionId);
    if (!snapshot) {
      throw new HoldpointError('SESSION_NOT_FOUND', `No session ${sessionId}.`, {
        session_id: sessionId,
      });
    }
    const { meta } = snapshot;
    if (appName !== undefined && appName !== meta.app) {
      throw new HoldpointError(
        'APP_MISMATCH',
        `Session ${sessionId} belongs to app ${meta.app}, not ${appName}.`,
      );
    }
    ctx.requireApp(meta.app);
    owner = meta.userId;
    run = newRun(sessionId, meta.app);
    await ctx.store.beginRun(run, lease);
  }
  return runSegment(ctx, {
    app: ctx.requireApp(run.app),
    sessionId: run.sessionId,
    userId: owner,
    invocationId: run.invocationId,
    lease,
    newMessage: { role: 'user', parts: [{ text: query }] },
    sink,
  });
}
