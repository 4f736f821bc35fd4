import type { Grant } from '../core/grants.js';

/**
 * Grants: remembered permissions to run a tool's calls without a pause, per user, until
 * they expire or are revoked. Read when a call that would pause may be covered by one.
 */
export interface Grants {
  /** Stores `grant`; storing the same grant again (same id) changes nothing. */
  put(grant: Grant): Promise<void>;
  get(grantId: string): Promise<Grant | undefined>;
  /** `userId`'s grants on `app`'s `toolName` in force at `now` (not revoked, not expired). */
  inForce(userId: string, app: string, toolName: string, now: number): Promise<Grant[]>;
  /** `userId`'s grants (in force or not, until purged), newest first, a page at a time. */
  list(userId: string, limit: number, cursor?: string): Promise<{ grants: Grant[]; next?: string }>;
  /** Marks the grant revoked by `by` at `now`: the grant as it is now, undefined when there is none. */
  revoke(grantId: string, by: string, now: number): Promise<Grant | undefined>;
}
