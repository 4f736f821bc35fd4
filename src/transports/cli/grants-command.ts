import type * as wire from '../http/wire/index.js';
import { callOperation, type HttpCredentials } from './server-request.js';

/** Where a grant stands at `now`, for the terminal. */
function stateText(grant: wire.Grant, now: number): string {
  if (grant.revoked_at !== undefined) {
    return `revoked by ${grant.revoked_by ?? 'someone'} at ${grant.revoked_at}`;
  }
  if (!grant.in_force || Date.parse(grant.expires_at) <= now) {
    return `expired at ${grant.expires_at}`;
  }
  return `in force until ${grant.expires_at}`;
}

/**
 * One grant on two lines: its id and where it stands, then what it allows (tool, app,
 * scope, `match` as JSON), who granted it and when.
 */
export function describeGrant(grant: wire.Grant, now: number): string {
  const where =
    grant.scope === 'user'
      ? `every session of ${grant.user_id}`
      : `session ${grant.session_id} of ${grant.user_id}`;
  const calls =
    grant.match === undefined ? 'every call' : `calls matching ${JSON.stringify(grant.match)}`;
  return (
    `${grant.grant_id}  ${stateText(grant, now)}\n` +
    `  ${grant.tool_name} (${grant.app}) in ${where}, ${calls}; granted by ${grant.granted_by} at ${grant.created_at}`
  );
}

/**
 * `holdpoint grants list`: every grant of the caller (or, for an admin, of `of`) on the
 * server at `baseUrl`, newest first, following `listGrants`'s pages to the end.
 */
export async function listGrantsText(
  baseUrl: string,
  credentials: HttpCredentials,
  of: string | undefined,
  now: number,
): Promise<string> {
  const grants: wire.Grant[] = [];
  let cursor: string | undefined;
  do {
    const query = {
      ...(of === undefined ? {} : { user_id: of }),
      ...(cursor === undefined ? {} : { cursor }),
    };
    const page = await callOperation<wire.GrantsPage>(baseUrl, credentials, 'listGrants', {
      query,
    });
    grants.push(...page.grants);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  if (grants.length === 0) return 'No grants.';
  return grants.map((grant) => describeGrant(grant, now)).join('\n');
}

/** `holdpoint grants revoke`: revokes `grantId` now (`revokeGrant`). */
export async function revokeGrantText(
  baseUrl: string,
  credentials: HttpCredentials,
  grantId: string,
  now: number,
): Promise<string> {
  const { grant } = await callOperation<{ grant: wire.Grant }>(
    baseUrl,
    credentials,
    'revokeGrant',
    { params: { grantId } },
  );
  return describeGrant(grant, now);
}
