import type { IncomingMessage } from 'node:http';
import { serveStatic } from '@hono/node-server/serve-static';
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import { isHoldpointError } from '../../core/errors.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { DecisionLinks } from '../../runtime/notify/decision-links.js';
import { httpMetrics } from '../../telemetry/http-metrics.js';
import { httpSpans } from '../../telemetry/http-span.js';
import {
  PROMETHEUS_CONTENT_TYPE,
  type PrometheusEndpoint,
} from '../../telemetry/prometheus-endpoint.js';
import { type Identity, requireIdentity } from '../auth/index.js';
import { bodyUserOf } from './body-user.js';
import type { WithPrincipal } from './caller.js';
import { decisionLinkRoutes } from './decision-link-routes.js';
import { httpStatus } from './error-status.js';
import { type BrowserPolicy, guardBrowsers, jsonBodies } from './guards/index.js';
import { retryAfterOf } from './limits/index.js';
import { openApiDocument } from './openapi/openapi-document.js';
import { OPERATIONS_BY_RESOURCE } from './operations/index.js';
import { presentError } from './present.js';
import { limitBodies, settleUnreadBodies } from './request-bodies.js';
import { isOperationPath, isPublicOperationPath } from './routes/operation-paths.js';
import { countRequest } from './routes/rate-counting.js';
import { resourceRoutes } from './routes/resource-routes.js';
import { type SlackInteractivity, slackInteractivityRoutes } from './slack-interactivity.js';

export interface HttpAppOptions {
  runtime: HoldpointRuntime;
  logger: Logger;
  /** How callers prove who they are. */
  identity: Identity;
  /** Which browsers may use the API (origins, hosts, CORS). */
  policy: BrowserPolicy;
  /** The built web UI (index.html and assets), served at `/` when given. */
  webRoot?: string;
  /** Holdpoint's metrics, served at `/metrics` in Prometheus text format when given. */
  metrics?: PrometheusEndpoint;
  /** Signed decision links: their pages are served at `/decide/:token` when given. */
  decisionLinks?: DecisionLinks;
  /** Slack's button presses, at `/slack/interactivity`, when a Slack channel is configured. */
  slack?: SlackInteractivity;
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The REST API over a runtime: the guards, identity and request counting every route
 * shares, then a sub-app per resource derived from the operations' definitions
 * (`operations/`), the sign-in routes, the web UI, and one error mapping for all.
 */
export function createHttpApp({
  runtime,
  logger,
  identity,
  policy,
  webRoot,
  metrics,
  decisionLinks,
  slack,
}: HttpAppOptions): Hono<WithPrincipal> {
  const app = new Hono<WithPrincipal>();

  app.use(settleUnreadBodies(MAX_BODY_BYTES));
  app.use('/api/*', httpSpans());
  app.use('/api/*', httpMetrics());
  guardBrowsers(app, policy);
  const limited = limitBodies(MAX_BODY_BYTES);
  app.use('/api/*', limited);
  app.use('/api/*', jsonBodies());

  /**
   * Where this app is mounted in a host's (`/hp`; empty at the root), from the route
   * `pattern` that matched: the sign-in routes sit beside `/api`.
   */
  const mountOf = (c: Context, pattern: string) => c.req.routePath.slice(0, -pattern.length);

  // The API's description is public, like /healthz: it is the same for everyone and
  // tells nothing a caller could not read in the package (docs/http-api.md).
  const document = openApiDocument();
  app.get('/api/openapi.json', (c) => c.json(document));

  const notFound = (c: Context<WithPrincipal>) =>
    c.json(
      { error: { code: 'NOT_FOUND', message: `No route ${c.req.method} ${c.req.path}.` } },
      404,
    );

  // A path no operation has is answered at once: nobody need sign in to learn it is not
  // there (`GET /api/health` is not the health check, /healthz is), and nothing is counted.
  app.use('/api/*', async (c, next) => {
    if (!isOperationPath(c.req.path.slice(mountOf(c, '/api/*').length))) return notFound(c);
    await next();
  });

  // Every API request says who sends it, in every mode: the user its body names must match
  // (but for the few public operations under /api: the A2A agent cards).
  app.use('/api/*', async (c, next) => {
    if (isPublicOperationPath(c.req.path.slice(mountOf(c, '/api/*').length))) return next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    c.set(
      'principal',
      await requireIdentity(
        identity,
        {
          request: c.req.raw,
          remoteAddress: incoming?.socket?.remoteAddress,
          // Only the development identity believes a body (seed 000's client names its user there).
          ...(identity.mode === 'dev' ? { bodyUser: bodyUserOf(c, runtime) } : {}),
        },
        identity.loginRoutes ? `${mountOf(c, '/api/*')}/auth/login` : undefined,
      ),
    );
    await next();
  });
  // Each route counts its request against the principal's limits (routes/rate-counting).

  // Like /healthz, outside /api and without identity, as scrapers expect: a deployment
  // keeps it internal (docs/library.md#metrics). Off, it says so, never the web page.
  app.get('/metrics', async (c) =>
    metrics
      ? c.body(await metrics.scrape(), 200, { 'content-type': PROMETHEUS_CONTENT_TYPE })
      : c.json(
          {
            error: {
              code: 'NOT_FOUND',
              message:
                'Metrics are off: start with --metrics prometheus (createHoldpoint: metrics: "prometheus").',
            },
          },
          404,
        ),
  );

  const deps = { runtime, logger, identity };
  for (const operations of Object.values(OPERATIONS_BY_RESOURCE)) {
    app.route('/', resourceRoutes(operations, deps));
  }

  // Public like the sign-in routes: Slack signs its requests instead of proving an identity.
  if (slack) app.route('/', slackInteractivityRoutes({ runtime, logger, ...slack }));

  if (identity.loginRoutes) {
    // Signing out changes state: JSON or no body, like the API (Origin: guardBrowsers).
    app.use('/auth/*', limited, jsonBodies());
    app.route('/auth', identity.loginRoutes);
  }

  if (decisionLinks) {
    app.route('/decide', decisionLinkRoutes({ runtime, identity, links: decisionLinks, logger }));
  }

  if (webRoot) {
    app.use('/*', serveStatic({ root: webRoot }));
    // Client-side routes (/, /approvals, …) all load the single page.
    app.get('*', async (c, next) => {
      if (c.req.path.startsWith('/api/')) return next();
      return serveStatic({ root: webRoot, path: 'index.html' })(c, next);
    });
  }

  // Mounted in a host's Hono app, the host's not-found handler applies, not this one:
  // an operation's path with another method answers here, the same JSON under any
  // mount, counted as a request.
  app.all('/api/*', async (c) => {
    await countRequest(c, runtime, false);
    return notFound(c);
  });
  app.notFound(notFound);

  app.onError((error, c) => {
    if (isHoldpointError(error)) {
      // A busy store is back-pressure, not a failure: one line each, no stack.
      if (error.code === 'STORE_BUSY') logger.warn({ code: error.code }, error.message);
      else if (httpStatus(error) >= 500)
        logger.error({ err: error, code: error.code }, error.message);
      const retryAfter = retryAfterOf(error);
      if (retryAfter !== undefined) c.header('retry-after', String(retryAfter));
      return c.json({ error: presentError(error) }, httpStatus(error) as 400);
    }
    logger.error({ err: error }, 'unexpected error');
    return c.json({ error: { code: 'INTERNAL', message: 'Internal error.' } }, 500);
  });

  return app;
}
