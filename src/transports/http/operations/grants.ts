import type { z } from 'zod';
import type { ListedGrant } from '../../../runtime/queries/grants.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A grant as the API shows it. */
export function presentGrant(g: ListedGrant): z.input<typeof wire.grant> {
  return {
    grant_id: g.grantId,
    app: g.app,
    tool_name: g.toolName,
    user_id: g.userId,
    scope: g.scope,
    session_id: g.sessionId,
    approval_id: g.approvalId,
    ...(g.match === undefined ? {} : { match: g.match }),
    granted_by: g.grantedBy,
    created_at: iso(g.createdAt),
    expires_at: iso(g.expiresAt),
    ...(g.revokedAt === undefined ? {} : { revoked_at: iso(g.revokedAt) }),
    ...(g.revokedBy === undefined ? {} : { revoked_by: g.revokedBy }),
    in_force: g.inForce,
  };
}

/** `/api/grants`: the grants deciders made with approvals, listed and revoked. */
export const grantOperations = [
  defineOperation({
    name: 'listGrants',
    method: 'get',
    path: '/api/grants',
    summary:
      "A user's grants (default: the caller's; an admin may name any `user_id`), newest first, in force or not, a page at a time.",
    description:
      "A grant allows later calls of a tool without a pause (docs/grants.md); `in_force` says whether it still does. Another user's `user_id` is `403` but for an admin.",
    query: wire.grantsQuery,
    act: ({ query, by, runtime }) =>
      runtime.operations.listGrants(
        { userId: query.user_id, limit: query.limit, cursor: query.cursor },
        by,
      ),
    answer: wire.grantsPage,
    present: (page) => ({
      grants: page.grants.map(presentGrant),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    }),
  }),
  defineOperation({
    name: 'revokeGrant',
    method: 'delete',
    path: '/api/grants/:grantId',
    summary:
      "Revokes a grant now (audited `grant_revoked`): for the grant's user, its granter or an admin.",
    description:
      'Answers `{grant}` with `in_force: false`; the `grant_revoked` line is in the audit log of the session the grant was made in. Anyone else gets `404 GRANT_NOT_FOUND`.',
    act: ({ params, by, runtime }) => runtime.operations.revokeGrant(params.grantId ?? '', by),
    answer: wire.grantAnswer,
    present: (grant) => ({ grant: presentGrant(grant) }),
  }),
];
