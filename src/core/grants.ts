import { isDeepStrictEqual } from 'node:util';

/** How far a grant reaches: the session it was made in, or every session of its user. */
export type GrantScope = 'session' | 'user';

/**
 * A condition on one top-level argument of a call: a JSON value it must equal, or
 * bounds on a number (`lt`, `lte`, `gt`, `gte`), or a list of values it must be one of.
 */
export type ArgCondition =
  | string
  | number
  | boolean
  | null
  | { lt?: number; lte?: number; gt?: number; gte?: number }
  | { in: (string | number | boolean | null)[] };

/** What a decider asks for with an approval: allow this tool for a while without asking. */
export interface GrantRequest {
  scope: GrantScope;
  /** How long, in hours (at most the tool's policy's `maxHours`). */
  hours: number;
  /** Only calls whose arguments meet every condition (absent: every call of the tool). */
  match?: Record<string, ArgCondition>;
}

/** What a tool's approval policy allows grants to be: which scopes, how long at most. */
export interface GrantPolicy {
  scopes: GrantScope[];
  maxHours: number;
}

/**
 * A remembered permission: later calls of `toolName` in `app`, by runs of `userId` (in
 * `sessionId` only, for the `session` scope) whose arguments meet `match`, run without
 * a pause until `expiresAt`, each recorded in the audit as allowed by this grant.
 */
export interface Grant {
  grantId: string;
  app: string;
  toolName: string;
  /** Whose runs it covers: the owner of the session it was made in. */
  userId: string;
  scope: GrantScope;
  /** The session it was made in (the only one it covers when `scope` is `session`). */
  sessionId: string;
  /** The approval whose decision made it. */
  approvalId: string;
  match?: Record<string, ArgCondition>;
  grantedBy: string;
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
  revokedBy?: string;
}

/** The call a grant is checked against. */
export interface GrantedCall {
  app: string;
  toolName: string;
  userId: string;
  sessionId: string;
  args: Record<string, unknown>;
}

/** Whether `value` meets `condition`. */
export function meetsCondition(value: unknown, condition: ArgCondition): boolean {
  if (condition === null || typeof condition !== 'object') {
    return isDeepStrictEqual(value, condition);
  }
  if ('in' in condition) return condition.in.some((option) => isDeepStrictEqual(value, option));
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  const { lt, lte, gt, gte } = condition;
  return (
    (lt === undefined || value < lt) &&
    (lte === undefined || value <= lte) &&
    (gt === undefined || value > gt) &&
    (gte === undefined || value >= gte)
  );
}

/** Whether `grant` allows `call` at `now`: in force (not revoked, not expired) and covering it. */
export function grantCovers(grant: Grant, call: GrantedCall, now: number): boolean {
  if (grant.revokedAt !== undefined || now >= grant.expiresAt) return false;
  if (grant.app !== call.app || grant.toolName !== call.toolName) return false;
  if (grant.userId !== call.userId) return false;
  if (grant.scope === 'session' && grant.sessionId !== call.sessionId) return false;
  return Object.entries(grant.match ?? {}).every(([field, condition]) =>
    meetsCondition(call.args[field], condition),
  );
}

/**
 * Whether `grant` is within `policy` as it stands now (a scope it allows, no longer than
 * its `maxHours`): a policy narrowed after a grant was made narrows the grant too.
 */
export function withinPolicy(grant: Grant, policy: GrantPolicy): boolean {
  return (
    policy.scopes.includes(grant.scope) &&
    grant.expiresAt - grant.createdAt <= policy.maxHours * 3_600_000
  );
}
