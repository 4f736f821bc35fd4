import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { SESSION_ID } from './session-attributes.js';

const tracer = trace.getTracer('holdpoint');

/**
 * The session a request is about: its path's (`/api/sessions/:id…`), else its
 * `session_id` query parameter (already decoded). A path segment that is not valid
 * percent-encoding is taken as it is: a span must never fail a request.
 */
function sessionOfRequest(path: string, query: string | undefined): string | undefined {
  const segment = /\/api\/sessions\/([^/]+)/.exec(path)?.[1];
  if (segment === undefined) return query;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A span per HTTP request, named by its route once routed (`POST /api/agent/start`),
 * active while the request is handled; one about a session (in its path, or a run it
 * starts) carries `session.id`.
 */
export function httpSpans(): MiddlewareHandler {
  return (c, next) =>
    tracer.startActiveSpan(
      `${c.req.method} ${c.req.path}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': c.req.method, 'url.path': c.req.path },
      },
      async (span) => {
        try {
          await next();
          const route = routePath(c);
          span.updateName(`${c.req.method} ${route}`);
          span.setAttribute('http.route', route);
          const sessionId = sessionOfRequest(c.req.path, c.req.query('session_id'));
          if (sessionId) span.setAttribute(SESSION_ID, sessionId);
          span.setAttribute('http.response.status_code', c.res.status);
          if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        } finally {
          span.end();
        }
      },
    );
}
