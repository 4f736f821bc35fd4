import type { ApiGrant } from 'holdpoint/react';
import { formatDuration, humanizeToolName } from 'holdpoint/react';

const BOUNDS: [key: 'lt' | 'lte' | 'gt' | 'gte', words: string][] = [
  ['lt', 'under'],
  ['lte', 'at most'],
  ['gt', 'over'],
  ['gte', 'at least'],
];

/** A JSON value as a person reads it in a sentence: strings quoted, the rest as JSON. */
function valueText(value: unknown): string {
  return typeof value === 'string' ? `“${value}”` : JSON.stringify(value);
}

/**
 * One condition of a grant's `match` in words, as the server reads it (src/core/grants.ts):
 * `{in: […]}` a list to be one of, an object of bounds on a number, else a value to equal.
 */
export function conditionText(field: string, condition: unknown): string {
  const name = humanizeToolName(field);
  if (condition !== null && typeof condition === 'object' && !Array.isArray(condition)) {
    const record = condition as Record<string, unknown>;
    if (Array.isArray(record.in)) {
      return `${name} is one of ${record.in.map(valueText).join(', ')}`;
    }
    const bounds = BOUNDS.filter(([key]) => record[key] !== undefined).map(
      ([key, words]) => `${words} ${valueText(record[key])}`,
    );
    return `${name} is ${bounds.join(' and ')}`;
  }
  return `${name} is ${valueText(condition)}`;
}

/** What calls a grant covers, one line a condition; none: every call of the tool. */
export function matchLines(match: ApiGrant['match']): string[] {
  return Object.entries(match ?? {}).map(([field, condition]) => conditionText(field, condition));
}

/** Where a grant stands at `now`: revoked (by whom), expired, or in force (for how long). */
export function grantState(
  grant: ApiGrant,
  now: number,
): { state: 'revoked' | 'expired' | 'in-force'; text: string } {
  if (grant.revoked_at !== undefined) {
    return { state: 'revoked', text: `Revoked by ${grant.revoked_by ?? 'someone'}` };
  }
  const left = Date.parse(grant.expires_at) - now;
  // The server's `in_force` was true when it answered; time has passed since.
  if (!grant.in_force || left <= 0) return { state: 'expired', text: 'Expired' };
  return { state: 'in-force', text: `Expires in ${formatDuration(left)}` };
}
