import type { IdentityHook } from 'holdpoint/types';

/**
 * Test support: a host identity hook that takes the caller from the request's headers,
 * `x-test-user` (their id) and `x-test-roles` (comma-separated), for tests that call the
 * routes with `app.request`.
 */
export const testCallerIdentity: IdentityHook = (request) => {
  const id = request.headers.get('x-test-user');
  const roles = request.headers.get('x-test-roles');
  return id ? { id, roles: roles ? roles.split(',') : [] } : undefined;
};

/** The headers that make `id` (with `roles`, comma-separated) the caller of a request. */
export function asCaller(id: string, roles = ''): Record<string, string> {
  return { 'x-test-user': id, 'x-test-roles': roles };
}
