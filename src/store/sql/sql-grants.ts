import type { Grant } from '../../core/grants.js';
import { decodeGrant, encodeGrant, grantCursor, parseGrantCursor } from '../grant-codec.js';
import type { Grants } from '../grants.js';
import type { SqlDriver, SqlRow } from './sql-driver.js';

/** How many grants one user's call can be covered by, at most, read per check. */
const MAX_IN_FORCE = 200;

/**
 * Grants in `hp_grants`: one row per grant (the record, and the columns it is found by:
 * user, app and tool for a call that may be covered, user and creation for the list,
 * expiry for the purge), kept a session TTL past its expiry.
 */
export class SqlGrants implements Grants {
  constructor(readonly driver: SqlDriver) {}

  async put(grant: Grant): Promise<void> {
    await this.driver.query(
      `INSERT INTO hp_grants (grant_id, user_id, app, tool_name, created_at, expires_at, revoked_at, record)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (grant_id) DO NOTHING`,
      [
        grant.grantId,
        grant.userId,
        grant.app,
        grant.toolName,
        grant.createdAt,
        grant.expiresAt,
        grant.revokedAt ?? null,
        encodeGrant(grant),
      ],
    );
  }

  async get(grantId: string): Promise<Grant | undefined> {
    const { rows } = await this.driver.query('SELECT record FROM hp_grants WHERE grant_id = $1', [
      grantId,
    ]);
    return decodeGrant((rows[0]?.record as string | undefined) ?? null, grantId);
  }

  async inForce(userId: string, app: string, toolName: string, now: number): Promise<Grant[]> {
    const { rows } = await this.driver.query(
      `SELECT grant_id, record FROM hp_grants
       WHERE user_id = $1 AND app = $2 AND tool_name = $3 AND expires_at > $4
         AND revoked_at IS NULL
       ORDER BY created_at DESC, grant_id DESC LIMIT ${MAX_IN_FORCE}`,
      [userId, app, toolName, now],
    );
    return readable(rows);
  }

  async list(
    userId: string,
    limit: number,
    cursor?: string,
  ): Promise<{ grants: Grant[]; next?: string }> {
    const after = cursor === undefined ? undefined : parseGrantCursor(cursor);
    const { rows } = after
      ? await this.driver.query(
          `SELECT grant_id, record FROM hp_grants
           WHERE user_id = $1 AND (created_at < $2 OR (created_at = $2 AND grant_id < $3))
           ORDER BY created_at DESC, grant_id DESC LIMIT $4`,
          [userId, after.createdAt, after.grantId, limit + 1],
        )
      : await this.driver.query(
          `SELECT grant_id, record FROM hp_grants WHERE user_id = $1
           ORDER BY created_at DESC, grant_id DESC LIMIT $2`,
          [userId, limit + 1],
        );
    const grants = readable(rows.slice(0, limit));
    const last = grants.at(-1);
    return rows.length > limit && last ? { grants, next: grantCursor(last) } : { grants };
  }

  async revoke(grantId: string, by: string, now: number): Promise<Grant | undefined> {
    const grant = await this.get(grantId);
    if (!grant || grant.revokedAt !== undefined) return grant;
    const revoked: Grant = { ...grant, revokedAt: now, revokedBy: by };
    // Only if nobody revoked it meanwhile: the first revocation is the one kept.
    const { changes } = await this.driver.query(
      'UPDATE hp_grants SET revoked_at = $1, record = $2 WHERE grant_id = $3 AND revoked_at IS NULL',
      [now, encodeGrant(revoked), grantId],
    );
    return changes === 1 ? revoked : this.get(grantId);
  }
}

/** The grants of `rows` that can be read: one unreadable record harms only its grant. */
function readable(rows: SqlRow[]): Grant[] {
  const found: Grant[] = [];
  for (const row of rows) {
    try {
      const grant = decodeGrant(row.record as string, row.grant_id as string);
      if (grant) found.push(grant);
    } catch {
      // Skipped: the others still apply.
    }
  }
  return found;
}
