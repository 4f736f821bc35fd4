import { Hono } from 'hono';
import type { Operation } from '../operations/index.js';
import type { OperationEnv } from './operation-env.js';
import { operationHandlers, type RouteDeps } from './operation-route.js';

/** One resource's routes as a Hono sub-app: a route per operation, at its full path. */
export function resourceRoutes(
  operations: readonly Operation[],
  deps: RouteDeps,
): Hono<OperationEnv> {
  const app = new Hono<OperationEnv>();
  for (const operation of operations) {
    const [first, ...rest] = operationHandlers(operation, deps);
    app.on(operation.method.toUpperCase(), operation.path, first, ...rest);
  }
  return app;
}
