import { OPERATIONS_BY_RESOURCE } from '../operations/index.js';

const OPERATIONS = Object.values(OPERATIONS_BY_RESOURCE).flat();

/** An operation's path as a pattern: `:name` matches one path segment. */
const patternOf = (path: string) =>
  new RegExp(
    `^${path
      .split('/')
      .map((step) => (step.startsWith(':') ? '[^/]+' : step.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}$`,
  );

const PATTERNS = OPERATIONS.map((operation) => patternOf(operation.path));
/** The paths under /api of public operations (an A2A agent card): nobody signs in to read them. */
const PUBLIC_PATTERNS = OPERATIONS.filter((operation) => operation.public).map((operation) =>
  patternOf(operation.path),
);

/**
 * Whether `path` (under the API's mount: `/api/runs/inv-1`) is the path of some
 * operation, whatever the method: any other `/api` path is answered 404 before anyone
 * proves who they are (the public OpenAPI document lists the routes anyway).
 */
export function isOperationPath(path: string): boolean {
  return path === '/api/openapi.json' || PATTERNS.some((pattern) => pattern.test(path));
}

/** Whether `path` (under the API's mount) is a public operation's: read without identity. */
export function isPublicOperationPath(path: string): boolean {
  return PUBLIC_PATTERNS.some((pattern) => pattern.test(path));
}
