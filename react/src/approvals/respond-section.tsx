import { useId, useMemo, useState } from 'react';
import { type FieldError, responseField } from './rich-approval.js';
import {
  type Draft,
  draftFrom,
  isSimpleObject,
  readDraft,
  type SchemaField,
  schemaFields,
} from './schema-fields.js';
import { SchemaForm } from './schema-form.js';

/** An answer in the tool's place in progress: a form for a simple object schema, else text. */
export interface ResponseDraft {
  /** The schema's fields, when the answer is a simple object entered field by field. */
  fields?: SchemaField[];
  draft: Draft;
  setField: (name: string, value: string | boolean) => void;
  text: string;
  setText: (text: string) => void;
  /** The answer as it reads now, when it reads. */
  value?: unknown;
  /** Complaints by field (`''`: the text as a whole). */
  errors: Record<string, string>;
}

/** The JSON type a schema names, when one. */
const typeOf = (schema: Record<string, unknown> | undefined) =>
  typeof schema?.type === 'string' ? schema.type.toLowerCase() : undefined;

/**
 * The text area's answer: as it is for a string schema; JSON for any other schema; and
 * without a schema JSON when it reads as JSON, else the text itself.
 */
function readText(
  text: string,
  schema: Record<string, unknown> | undefined,
): { value: unknown } | { error: string } {
  if (text.trim() === '') return { error: 'Write the answer.' };
  if (typeOf(schema) === 'string') return { value: text };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return schema ? { error: 'Not valid JSON.' } : { value: text };
  }
}

/** The state of a "Respond instead" answer for `decision_policy.respond_schema`. */
export function useResponseDraft(schema: Record<string, unknown> | undefined): ResponseDraft {
  const fields = useMemo(
    () => (isSimpleObject(schema) ? schemaFields(schema) : undefined),
    [schema],
  );
  const [draft, setDraft] = useState<Draft>(() => draftFrom(fields ?? [], {}));
  const [text, setText] = useState('');
  const setField = (name: string, value: string | boolean) =>
    setDraft((prev) => ({ ...prev, [name]: value }));
  if (fields) {
    const { values, errors } = readDraft(fields, draft, {});
    return { fields, draft, setField, text, setText, value: values, errors };
  }
  const read = readText(text, schema);
  return {
    draft,
    setField,
    text,
    setText,
    ...('value' in read ? { value: read.value, errors: {} } : { errors: { '': read.error } }),
  };
}

interface Props {
  response: ResponseDraft;
  schema?: Record<string, unknown>;
  fieldError?: FieldError;
  /** Show the complaints (after a first try to send). */
  showErrors: boolean;
  disabled: boolean;
  titleId: string;
}

/** "Respond instead": the answer that becomes the tool's result; the tool does not run. */
export function RespondSection({
  response,
  schema,
  fieldError,
  showErrors,
  disabled,
  titleId,
}: Props) {
  const textId = useId();
  const errors = showErrors ? { ...response.errors } : {};
  // The server's complaint beside the field it names, else about the answer as a whole.
  const named = responseField(fieldError);
  if (fieldError && named !== undefined) {
    const known = response.fields?.some((f) => f.name === named);
    errors[known ? named : ''] = fieldError.message;
  }
  const textError = errors[''];
  const expectsJson = schema !== undefined && typeOf(schema) !== 'string';
  return (
    <section className="hp-modal__section" aria-labelledby={`${titleId}-respond`}>
      <h3 id={`${titleId}-respond`} className="hp-section-label">
        Respond instead
      </h3>
      <p className="hp-modal__note">
        Your answer becomes the tool’s result, and the tool does not run.
      </p>
      {response.fields ? (
        <SchemaForm
          label="Response"
          fields={response.fields}
          draft={response.draft}
          onChange={response.setField}
          errors={errors}
          disabled={disabled}
          autoFocus
        />
      ) : (
        <div className="hp-field">
          <label htmlFor={textId} className="hp-field__label">
            Response{' '}
            <span className="hp-field__optional">
              {expectsJson ? '(JSON)' : schema ? '' : '(text, or JSON)'}
            </span>
          </label>
          <textarea
            id={textId}
            className={expectsJson ? 'hp-input hp-input--code' : 'hp-input'}
            rows={3}
            spellCheck={!expectsJson}
            value={response.text}
            disabled={disabled}
            data-autofocus
            aria-invalid={textError ? true : undefined}
            aria-describedby={textError ? `${textId}-error` : undefined}
            onChange={(event) => response.setText(event.target.value)}
          />
          {textError ? (
            <p id={`${textId}-error`} className="hp-field__error">
              {textError}
            </p>
          ) : null}
        </div>
      )}
    </section>
  );
}
