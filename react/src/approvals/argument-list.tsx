import { humanizeToolName } from './approval-request.js';

const MAX_TEXT = 160;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value);
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return value.toLocaleString('en-US');
  const text = String(value);
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function Value({ value }: { value: unknown }) {
  if (isScalar(value)) {
    return <span className={`hp-arg-value hp-arg-value--${typeof value}`}>{scalarText(value)}</span>;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="hp-arg-value hp-arg-value--empty">none</span>;
    if (value.every(isScalar)) {
      return (
        <ul className="hp-arg-chips">
          {value.map((item, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: arguments are fixed; items may repeat.
            <li key={index} className="hp-arg-chip">
              {scalarText(item)}
            </li>
          ))}
        </ul>
      );
    }
    return (
      <ol className="hp-arg-items">
        {value.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: arguments are fixed; items may repeat.
          <li key={index}>
            <Value value={item} />
          </li>
        ))}
      </ol>
    );
  }
  if (isPlainObject(value)) return <ArgumentList args={value} nested />;
  return <span className="hp-arg-value">{scalarText(value)}</span>;
}

interface Props {
  args: Record<string, unknown>;
  nested?: boolean;
}

/** Tool arguments as readable label/value pairs (nested objects and lists included). */
export function ArgumentList({ args, nested = false }: Props) {
  const entries = Object.entries(args);
  if (entries.length === 0) {
    return <p className="hp-arg-list hp-arg-list--empty">No arguments.</p>;
  }
  return (
    <dl className={nested ? 'hp-arg-list hp-arg-list--nested' : 'hp-arg-list'}>
      {entries.map(([key, value]) => (
        <div className="hp-arg-row" key={key}>
          <dt className="hp-arg-key" title={key}>
            {humanizeToolName(key)}
          </dt>
          <dd className="hp-arg-cell">
            <Value value={value} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
