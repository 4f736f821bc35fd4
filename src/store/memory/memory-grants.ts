import type { Grant } from '../../core/grants.js';
import { afterGrantCursor, grantCursor, newestFirst, parseGrantCursor } from '../grant-codec.js';
import type { Grants } from '../grants.js';

/**
 * Grants in this process, by id and by user. Kept, in force or not, until `purge` drops
 * those whose retention (expiry + `retainMs`) ended.
 */
export class MemoryGrants implements Grants {
  private readonly byId = new Map<string, Grant>();
  /** User → the ids of their grants. */
  private readonly byUser = new Map<string, Set<string>>();

  constructor(private readonly retainMs: number) {}

  async put(grant: Grant): Promise<void> {
    if (this.byId.has(grant.grantId)) return;
    this.byId.set(grant.grantId, structuredClone(grant));
    const ids = this.byUser.get(grant.userId) ?? new Set<string>();
    ids.add(grant.grantId);
    this.byUser.set(grant.userId, ids);
  }

  async get(grantId: string): Promise<Grant | undefined> {
    const grant = this.byId.get(grantId);
    return grant && structuredClone(grant);
  }

  async inForce(userId: string, app: string, toolName: string, now: number): Promise<Grant[]> {
    return this.ofUser(userId).filter(
      (g) =>
        g.app === app && g.toolName === toolName && g.revokedAt === undefined && now < g.expiresAt,
    );
  }

  async list(
    userId: string,
    limit: number,
    cursor?: string,
  ): Promise<{ grants: Grant[]; next?: string }> {
    const after = cursor === undefined ? undefined : parseGrantCursor(cursor);
    const all = this.ofUser(userId).filter((g) => !after || afterGrantCursor(g, after));
    const grants = all.slice(0, limit);
    const last = grants.at(-1);
    return all.length > limit && last ? { grants, next: grantCursor(last) } : { grants };
  }

  async revoke(grantId: string, by: string, now: number): Promise<Grant | undefined> {
    const grant = this.byId.get(grantId);
    if (!grant) return undefined;
    if (grant.revokedAt === undefined) {
      grant.revokedAt = now;
      grant.revokedBy = by;
    }
    return structuredClone(grant);
  }

  /** Drops, at most `limit`, the grants whose retention ended by `now`; how many went. */
  purge(now: number, limit: number): number {
    let removed = 0;
    for (const [grantId, grant] of this.byId) {
      if (removed >= limit) break;
      if (grant.expiresAt + this.retainMs > now) continue;
      this.byId.delete(grantId);
      const ids = this.byUser.get(grant.userId);
      ids?.delete(grantId);
      if (ids?.size === 0) this.byUser.delete(grant.userId);
      removed += 1;
    }
    return removed;
  }

  /** How many grants are kept. */
  count(): number {
    return this.byId.size;
  }

  /** `userId`'s grants, newest first, as copies. */
  private ofUser(userId: string): Grant[] {
    return [...(this.byUser.get(userId) ?? [])]
      .map((id) => this.byId.get(id))
      .filter((g): g is Grant => g !== undefined)
      .sort(newestFirst)
      .map((g) => structuredClone(g));
  }
}
