import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { holdpointMetrics } from './metrics.js';

/**
 * Records each API request once answered: its method, its route as declared
 * (`/api/runs/:invocationId`, never the ids in it, so the series stay few), its status
 * and how long it took, on `holdpoint.http.request.duration`.
 */
export function httpMetrics(now: () => number = () => performance.now()): MiddlewareHandler {
  return async (c, next) => {
    const start = now();
    try {
      await next();
    } finally {
      holdpointMetrics().recordHttpRequest(
        c.req.method,
        routePath(c),
        c.res.status,
        (now() - start) / 1000,
      );
    }
  };
}
