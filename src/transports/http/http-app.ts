import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { serveStatic } from '@hono/node-server/serve-static';
import { createUIMessageStreamResponse } from 'ai';
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import { auditLine } from '../../core/audit-line.js';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { validate } from '../../core/validate.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';
import { httpSpans } from '../../telemetry/http-span.js';
import { chatIntent } from '../ai-sdk/chat-intent.js';
import { chatRequestBody } from '../ai-sdk/chat-request.js';
import { chatStream } from '../ai-sdk/chat-stream.js';
import { historyMessages } from '../ai-sdk/history-messages.js';
import { type Identity, requireIdentity } from '../auth/index.js';
import { auditNdjson } from './audit-export.js';
import { bodyClaimant } from './body-claimant.js';
import { callerOf, claimedCaller, type WithPrincipal } from './caller.js';
import { type BrowserPolicy, guardBrowsers, jsonBodies } from './guards/index.js';
import { retryAfterOf } from './limits/index.js';
import {
  presentError,
  presentOutcome,
  presentPendingApproval,
  presentRun,
  presentSession,
  presentSessionSummary,
} from './present.js';
import { readBody, readOptionalBody } from './read-body.js';
import { limitBodies, settleUnreadBodies } from './request-bodies.js';
import {
  approvalDecisionBody,
  approvalsQuery,
  auditQuery,
  cancelBody,
  cancelRunBody,
  recoverBody,
  resumeBody,
  runsQuery,
  sessionsQuery,
  startBody,
} from './schemas.js';

export interface HttpAppOptions {
  runtime: HoldpointRuntime;
  logger: Logger;
  /** How callers prove who they are. */
  identity: Identity;
  /** Which browsers may use the API (origins, hosts, CORS). */
  policy: BrowserPolicy;
  /** The built web UI (index.html and assets), served at `/` when given. */
  webRoot?: string;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** The REST API over a runtime: start, resume, cancel, sessions, approvals, audit, health. */
export function createHttpApp({
  runtime,
  logger,
  identity,
  policy,
  webRoot,
}: HttpAppOptions): Hono<WithPrincipal> {
  const app = new Hono<WithPrincipal>();

  app.use(settleUnreadBodies(MAX_BODY_BYTES));
  app.use('/api/*', httpSpans());
  guardBrowsers(app, policy);
  const limited = limitBodies(MAX_BODY_BYTES);
  app.use('/api/*', limited);
  app.use('/api/*', jsonBodies());

  /**
   * Where this app is mounted in a host's (`/hp`; empty at the root), from the route
   * `pattern` that matched: the sign-in routes sit beside `/api`.
   */
  const mountOf = (c: Context, pattern: string) => c.req.routePath.slice(0, -pattern.length);

  // Every API request says who sends it, in every mode: what it claims in a body must match.
  app.use('/api/*', async (c, next) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    c.set(
      'principal',
      await requireIdentity(
        identity,
        {
          request: c.req.raw,
          remoteAddress: incoming?.socket?.remoteAddress,
          // Only the development identity believes a body (seed 000's client names its user there).
          ...(identity.mode === 'dev' ? { claimedUser: bodyClaimant(c, runtime) } : {}),
        },
        identity.loginRoutes ? `${mountOf(c, '/api/*')}/auth/login` : undefined,
      ),
    );
    await next();
  });
  // Then counted against the principal's request limit, before anything is read.
  app.use('/api/*', async (c, next) => {
    await runtime.countRequest(callerOf(c), 'requests');
    await next();
  });

  /**
   * Counts a request that starts or resumes a run against the principal's run limit:
   * once its body is valid (a malformed request costs no run), before it acts.
   */
  const countRun = (c: Context<WithPrincipal>) => runtime.countRequest(callerOf(c), 'runs');

  app.get('/api/me', (c) => {
    const { id, roles } = callerOf(c);
    const signOut = identity.loginRoutes
      ? { logout_url: `${mountOf(c, '/api/me')}/auth/logout` }
      : {};
    return c.json({ principal: { id, roles }, auth_mode: identity.mode, ...signOut });
  });

  app.get('/api/apps', (c) =>
    c.json({
      apps: runtime.apps.map(({ name, label, description, examples, fingerprint }) => ({
        name,
        label,
        description,
        examples,
        fingerprint,
      })),
      default_app: runtime.apps[0]?.name,
    }),
  );

  /**
   * Runs `act` once per `Idempotency-Key` header when the request has one: a retry gets
   * the first answer (see HoldpointRuntime.idempotent).
   */
  const oncePerKey = (
    c: Context<WithPrincipal>,
    operation: string,
    body: unknown,
    act: (requestId?: string) => Promise<RunOutcome>,
  ): Promise<RunOutcome> => {
    const key = c.req.header('idempotency-key');
    if (key === undefined) return act();
    const caller = claimedCaller(c, (body as { user_id?: string }).user_id).id;
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([c.req.param(), body]))
      .digest('hex');
    return runtime.idempotent({ operation, caller, key, fingerprint }, act);
  };

  app.post('/api/agent/start', async (c) => {
    const body = await readBody(c, startBody);
    await countRun(c);
    const outcome = await oncePerKey(c, 'start', body, (requestId) =>
      runtime.start(
        { query: body.query, app: body.app, sessionId: body.session_id, requestId },
        claimedCaller(c, body.user_id),
      ),
    );
    return c.json(presentOutcome(outcome));
  });

  app.post('/api/agent/resume', async (c) => {
    const body = await readBody(c, resumeBody);
    await countRun(c);
    const outcome = await oncePerKey(c, 'resume', body, (requestId) =>
      runtime.resume(
        {
          requestId,
          sessionId: body.session_id,
          pauseId: body.pause_id,
          approved: body.approved,
          reason: body.reason,
          decisions: body.decisions?.map((d) => ({
            approvalId: d.approval_id,
            approved: d.approved,
            reason: d.reason,
            payload: d.payload,
            argsHash: d.args_hash,
          })),
        },
        claimedCaller(c, body.user_id),
      ),
    );
    return c.json(presentOutcome(outcome));
  });

  app.post('/api/agent/cancel', async (c) => {
    const body = await readBody(c, cancelBody);
    const pause = await runtime.cancel(
      body.session_id,
      claimedCaller(c, body.user_id),
      body.reason,
    );
    return c.json({
      status: 'cancelled',
      session_id: pause.sessionId,
      invocation_id: pause.invocationId,
    });
  });

  app.get('/api/runs', async (c) => {
    const query = validate(runsQuery, c.req.query());
    const page = await runtime.listRuns(query, callerOf(c));
    return c.json({
      runs: page.runs.map(presentRun),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    });
  });

  app.get('/api/runs/:invocationId', async (c) => {
    return c.json(presentRun(await runtime.getRun(c.req.param('invocationId'), callerOf(c))));
  });

  app.post('/api/runs/:invocationId/resume', async (c) => {
    const body = await readOptionalBody(c, recoverBody);
    await countRun(c);
    const outcome = await oncePerKey(c, 'recover', body, () =>
      runtime.recover(
        { invocationId: c.req.param('invocationId') },
        claimedCaller(c, body.user_id),
      ),
    );
    return c.json(presentOutcome(outcome));
  });

  app.post('/api/runs/:invocationId/cancel', async (c) => {
    const body = await readOptionalBody(c, cancelRunBody);
    const run = await runtime.cancelInterrupted(
      { invocationId: c.req.param('invocationId'), reason: body.reason },
      claimedCaller(c, body.user_id),
    );
    return c.json(presentRun(run));
  });

  app.get('/api/sessions', async (c) => {
    const query = validate(sessionsQuery, c.req.query());
    const page = await runtime.listSessions(
      { userId: query.user_id, limit: query.limit, cursor: query.cursor },
      callerOf(c),
    );
    return c.json({
      sessions: page.sessions.map(presentSessionSummary),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    });
  });

  app.get('/api/sessions/:id', async (c) => {
    return c.json(presentSession(await runtime.getSession(c.req.param('id'), callerOf(c))));
  });

  app.get('/api/sessions/:id/messages', async (c) => {
    const { view, turns } = await runtime.history(c.req.param('id'), callerOf(c));
    return c.json({
      ...presentSession(view),
      messages: await historyMessages(view, turns),
    });
  });

  app.get('/api/approvals', async (c) => {
    const query = validate(approvalsQuery, c.req.query());
    const page = await runtime.listPendingApprovals(
      { userId: query.user_id, limit: query.limit, cursor: query.cursor },
      callerOf(c),
    );
    return c.json({
      approvals: page.approvals.map(presentPendingApproval),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    });
  });

  app.post('/api/approvals/:approvalId', async (c) => {
    const body = await readBody(c, approvalDecisionBody);
    await countRun(c);
    const outcome = await oncePerKey(c, 'decide', body, (requestId) =>
      runtime.decideApproval(
        {
          approvalId: c.req.param('approvalId'),
          approved: body.approved,
          reason: body.reason,
          payload: body.payload,
          argsHash: body.args_hash,
        },
        claimedCaller(c, body.user_id),
        undefined,
        requestId,
      ),
    );
    return c.json(presentOutcome(outcome));
  });

  app.get('/api/audit', async (c) => {
    const query = validate(auditQuery, c.req.query());
    if (query.format === 'ndjson') {
      const sessionId = query.session_id;
      const caller = callerOf(c);
      const rows = await auditNdjson(
        (cursor) => runtime.audit({ sessionId, limit: LIMITS.pageSize, cursor }, caller),
        logger.child({ session_id: sessionId }),
      );
      return c.body(rows, 200, { 'content-type': 'application/x-ndjson' });
    }
    const page = await runtime.audit(
      { sessionId: query.session_id, limit: query.limit, cursor: query.cursor },
      callerOf(c),
    );
    return c.json({
      session_id: query.session_id,
      entries: page.entries.map(auditLine),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    });
  });

  app.post('/api/chat', async (c) => {
    const body = await readBody(c, chatRequestBody);
    const intent = chatIntent(body);
    if (!intent) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        'The last message must be a user message with text, or a message (assistant or user) answering approvals of a known session.',
      );
    }
    const caller = claimedCaller(c, body.userId);
    await countRun(c);
    return createUIMessageStreamResponse({
      stream: chatStream({ runtime, body, intent, caller, mode: 'two-turn' }),
    });
  });

  if (identity.loginRoutes) {
    // Signing out changes state: JSON or no body, like the API (Origin: guardBrowsers).
    app.use('/auth/*', limited, jsonBodies());
    app.route('/auth', identity.loginRoutes);
  }

  app.get('/healthz', async (c) => {
    const health = await runtime.health();
    return c.json(health, health.status === 'ok' ? 200 : 503);
  });

  if (webRoot) {
    app.use('/*', serveStatic({ root: webRoot }));
    // Client-side routes (/, /approvals, …) all load the single page.
    app.get('*', async (c, next) => {
      if (c.req.path.startsWith('/api/')) return next();
      return serveStatic({ root: webRoot, path: 'index.html' })(c, next);
    });
  }

  const notFound = (c: Context<WithPrincipal>) =>
    c.json(
      { error: { code: 'NOT_FOUND', message: `No route ${c.req.method} ${c.req.path}.` } },
      404,
    );
  // Mounted in a host's Hono app, the host's not-found handler applies, not this one:
  // unknown API paths answer here, the same JSON under any mount.
  app.all('/api/*', notFound);
  app.notFound(notFound);

  app.onError((error, c) => {
    if (isHoldpointError(error)) {
      if (error.status >= 500) logger.error({ err: error, code: error.code }, error.message);
      const retryAfter = retryAfterOf(error);
      if (retryAfter !== undefined) c.header('retry-after', String(retryAfter));
      return c.json({ error: presentError(error) }, error.status as 400);
    }
    logger.error({ err: error }, 'unexpected error');
    return c.json({ error: { code: 'INTERNAL', message: 'Internal error.' } }, 500);
  });

  return app;
}
