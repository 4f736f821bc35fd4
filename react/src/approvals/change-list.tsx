import { humanizeToolName } from './approval-request.js';
import type { FieldChange } from './args-diff.js';

const MAX_TEXT = 120;

/** A value as one line of text: strings as they are, anything else as compact JSON. */
export function valueText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

interface Props {
  changes: FieldChange[];
  /** Names the list (`aria-label`). */
  label: string;
  /** Shown when nothing changed. */
  empty?: string;
}

/** What changed, one field a line: `Amount: 200 → 150`, new and removed fields said so. */
export function ChangeList({ changes, label, empty = 'Nothing changed.' }: Props) {
  if (changes.length === 0) return <p className="hp-change-list hp-change-list--empty">{empty}</p>;
  return (
    <ul className="hp-change-list" aria-label={label}>
      {changes.map(({ field, before, after, change }) => (
        <li key={field} className="hp-change">
          <span className="hp-change__field" title={field}>
            {humanizeToolName(field)}:
          </span>{' '}
          {change === 'added' ? (
            <span className="hp-change__note">(new)</span>
          ) : (
            <del className="hp-change__before">{valueText(before)}</del>
          )}{' '}
          →{' '}
          {change === 'removed' ? (
            <span className="hp-change__note">(removed)</span>
          ) : (
            <ins className="hp-change__after">{valueText(after)}</ins>
          )}
        </li>
      ))}
    </ul>
  );
}
