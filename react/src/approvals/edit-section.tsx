import { useMemo, useState } from 'react';
import type { ApprovalRequest } from './approval-request.js';
import { argsDiff, type FieldChange } from './args-diff.js';
import { ChangeList } from './change-list.js';
import { editedField, type FieldError } from './rich-approval.js';
import {
  type Draft,
  draftFrom,
  isEditable,
  readDraft,
  type SchemaField,
  schemaFields,
} from './schema-fields.js';
import { SchemaForm } from './schema-form.js';

/** An edit of a call's arguments in progress: the form's draft and what it reads as. */
export interface EditDraft {
  fields: SchemaField[];
  draft: Draft;
  setField: (name: string, value: string | boolean) => void;
  enabled: (name: string) => boolean;
  /** The arguments the draft stands for. */
  editedArgs: Record<string, unknown>;
  /** The form's own complaints, by field. */
  errors: Record<string, string>;
  /** What the draft changes, compared to the arguments as they stand. */
  changes: FieldChange[];
  /** Fields the person changed in the form (their complaints are shown). */
  touched: ReadonlySet<string>;
}

/**
 * The edit form's state for a confirmation whose policy lets its arguments be edited:
 * fields from `decision_policy.args_schema` (or from the arguments when there is none),
 * prefilled with the current arguments, only the editable ones enabled.
 */
export function useEditDraft(request: ApprovalRequest): EditDraft {
  const editable = request.policy?.editable;
  const fields = useMemo(
    () => schemaFields(request.policy?.args_schema, request.args),
    [request.policy?.args_schema, request.args],
  );
  const [draft, setDraft] = useState<Draft>(() => draftFrom(fields, request.args));
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const enabled = (name: string) => isEditable(editable, name);
  const { values, errors } = readDraft(fields, draft, request.args, enabled);
  return {
    fields,
    draft,
    setField: (name, value) => {
      setDraft((prev) => ({ ...prev, [name]: value }));
      setTouched((prev) => new Set(prev).add(name));
    },
    enabled,
    editedArgs: values,
    errors,
    changes: argsDiff(request.args, values),
    touched,
  };
}

interface Props {
  edit: EditDraft;
  /** The server's complaint about a field of the last edit sent. */
  fieldError?: FieldError;
  /** Show every complaint of the form, not only those of the fields changed. */
  showAll: boolean;
  /** The tool has a rule by which some edits need another approver. */
  mayNeedApproval: boolean;
  disabled: boolean;
  titleId: string;
}

/** The edit form, what the edit changes (old → new per field), and whether it may need another approver. */
export function EditSection({
  edit,
  fieldError,
  showAll,
  mayNeedApproval,
  disabled,
  titleId,
}: Props) {
  const shown = Object.fromEntries(
    Object.entries(edit.errors).filter(([name]) => showAll || edit.touched.has(name)),
  );
  const named = editedField(fieldError);
  if (fieldError && named !== undefined && edit.fields.some((f) => f.name === named)) {
    shown[named] = fieldError.message;
  }
  return (
    <>
      <section className="hp-modal__section" aria-labelledby={`${titleId}-edit`}>
        <h3 id={`${titleId}-edit`} className="hp-section-label">
          Change the call
        </h3>
        <SchemaForm
          label="Arguments"
          fields={edit.fields}
          draft={edit.draft}
          onChange={edit.setField}
          enabled={edit.enabled}
          errors={shown}
          disabled={disabled}
          autoFocus
        />
      </section>
      <section
        className="hp-modal__section hp-modal__section--changes"
        aria-labelledby={`${titleId}-changes`}
      >
        <h3 id={`${titleId}-changes`} className="hp-section-label">
          What changes
        </h3>
        <ChangeList
          changes={edit.changes}
          label="Your changes"
          empty="Nothing changed yet: change a field above."
        />
      </section>
      {mayNeedApproval ? (
        <p className="hp-modal__note">
          Some changes need another approver: if yours does, the call waits for them before it runs.
        </p>
      ) : null}
    </>
  );
}
