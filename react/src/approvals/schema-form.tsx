import { type ReactNode, useId } from 'react';
import type { Draft, SchemaField } from './schema-fields.js';

interface Props {
  /** Names the form for assistive technology (`aria-label` of its group). */
  label: string;
  fields: SchemaField[];
  draft: Draft;
  onChange: (name: string, value: string | boolean) => void;
  /** Which fields may be changed; the others are shown, disabled. Default: all. */
  enabled?: (name: string) => boolean;
  /** A message per field (the form's own checks, or the server's), shown beside it. */
  errors?: Record<string, string>;
  disabled?: boolean;
  /** Focus the first enabled field when the form appears. */
  autoFocus?: boolean;
}

/** The option text of an enum value. */
const optionText = (value: unknown) =>
  typeof value === 'string' ? value : value === null ? 'none' : String(value);

/**
 * A form generated from a JSON Schema's fields: text, numbers, checkboxes, selects for
 * enums and JSON text for the rest, each labelled, its message tied to it
 * (`aria-describedby`, `aria-invalid`).
 */
export function SchemaForm({
  label,
  fields,
  draft,
  onChange,
  enabled = () => true,
  errors = {},
  disabled = false,
  autoFocus = false,
}: Props) {
  const prefix = useId();
  const firstEnabled = fields.find((f) => enabled(f.name))?.name;
  return (
    <fieldset className="hp-schema-form" aria-label={label} disabled={disabled}>
      {fields.map((field) => {
        const id = `${prefix}-${field.name}`;
        const errorId = `${id}-error`;
        const hintId = `${id}-hint`;
        const editable = enabled(field.name);
        const error = errors[field.name];
        const describedBy =
          [field.description ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ') ||
          undefined;
        const common = {
          id,
          disabled: !editable,
          'aria-invalid': error ? true : undefined,
          'aria-describedby': describedBy,
          'data-autofocus': autoFocus && field.name === firstEnabled ? true : undefined,
        };
        const entry = draft[field.name];
        const text = typeof entry === 'string' ? entry : '';
        let control: ReactNode;
        if (field.kind === 'boolean') {
          control = (
            <input
              {...common}
              type="checkbox"
              className="hp-schema-form__check"
              checked={entry === true}
              onChange={(event) => onChange(field.name, event.target.checked)}
            />
          );
        } else if (field.kind === 'enum') {
          control = (
            <select
              {...common}
              className="hp-input"
              value={text}
              onChange={(event) => onChange(field.name, event.target.value)}
            >
              {text === '' || !field.required ? <option value="">—</option> : null}
              {(field.options ?? []).map((option, index) => (
                <option key={optionText(option)} value={String(index)}>
                  {optionText(option)}
                </option>
              ))}
            </select>
          );
        } else if (field.kind === 'json') {
          control = (
            <textarea
              {...common}
              className="hp-input hp-input--code"
              rows={3}
              spellCheck={false}
              value={text}
              onChange={(event) => onChange(field.name, event.target.value)}
            />
          );
        } else {
          const numeric = field.kind === 'number' || field.kind === 'integer';
          control = (
            <input
              {...common}
              className="hp-input"
              type={numeric ? 'number' : 'text'}
              step={numeric ? (field.kind === 'integer' ? 1 : 'any') : undefined}
              inputMode={numeric ? 'decimal' : undefined}
              value={text}
              onChange={(event) => onChange(field.name, event.target.value)}
            />
          );
        }
        return (
          <div
            key={field.name}
            className={field.kind === 'boolean' ? 'hp-field hp-field--check' : 'hp-field'}
          >
            <label htmlFor={id} className="hp-field__label">
              {field.label}
              {editable ? null : <span className="hp-field__optional"> (cannot be changed)</span>}
              {editable && !field.required && field.kind !== 'boolean' ? (
                <span className="hp-field__optional"> (optional)</span>
              ) : null}
            </label>
            {control}
            {field.description ? (
              <p id={hintId} className="hp-field__hint">
                {field.description}
              </p>
            ) : null}
            {error ? (
              <p id={errorId} className="hp-field__error">
                {error}
              </p>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
