import type { Principal } from '../../src/core/principal.js';

/** Test support: who acts in tests. `ann` owns the sessions she starts. */
export const ann: Principal = { id: 'ann', roles: [] };
/** Decides other people's approvals: an admin, as the default policy lets admins decide. */
export const bob: Principal = { id: 'bob', roles: ['admin'] };
/** An operator: resumes and gives up interrupted runs. */
export const ops: Principal = { id: 'ops', roles: ['admin'] };

/** A principal with these roles. */
export function as(id: string, ...roles: string[]): Principal {
  return { id, roles };
}
