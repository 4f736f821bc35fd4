import { sameJson } from './schema-fields.js';

/** One field that differs between two sets of arguments; a side without the field has none. */
export interface FieldChange {
  field: string;
  before?: unknown;
  after?: unknown;
  /** Whether the field is new, gone, or has another value. */
  change: 'added' | 'removed' | 'changed';
}

/** The fields that differ from `before` to `after`, in `before`'s order, then the new ones. */
export function argsDiff(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [field, value] of Object.entries(before)) {
    if (!(field in after)) changes.push({ field, before: value, change: 'removed' });
    else if (!sameJson(value, after[field])) {
      changes.push({ field, before: value, after: after[field], change: 'changed' });
    }
  }
  for (const [field, value] of Object.entries(after)) {
    if (!(field in before)) changes.push({ field, after: value, change: 'added' });
  }
  return changes;
}
