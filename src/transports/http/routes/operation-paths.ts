import { OPERATIONS_BY_RESOURCE } from '../operations/index.js';

/** Each operation's path as a pattern: `:name` matches one path segment. */
const PATTERNS = Object.values(OPERATIONS_BY_RESOURCE)
  .flat()
  .map(
    (operation) =>
      new RegExp(
        `^${operation.path
          .split('/')
          .map((step) =>
            step.startsWith(':') ? '[^/]+' : step.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
          )
          .join('/')}$`,
      ),
  );

/**
 * Whether `path` (under the API's mount: `/api/runs/inv-1`) is the path of some
 * operation, whatever the method: any other `/api` path is answered 404 before anyone
 * proves who they are (the public OpenAPI document lists the routes anyway).
 */
export function isOperationPath(path: string): boolean {
  return path === '/api/openapi.json' || PATTERNS.some((pattern) => pattern.test(path));
}
