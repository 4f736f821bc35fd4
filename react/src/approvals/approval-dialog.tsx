import {
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { createPortal } from 'react-dom';
import { useNow } from '../ui/use-now.js';
import { type ApprovalRequest, humanizeToolName } from './approval-request.js';
import { waitingFor } from './approvers-text.js';
import { argsDiff } from './args-diff.js';
import { ArgumentList } from './argument-list.js';
import { ChangeList } from './change-list.js';
import { EditSection, useEditDraft } from './edit-section.js';
import { GrantChoice, useGrantDraft } from './grant-choice.js';
import type { InputChoice } from './input-answer.js';
import { RespondSection, useResponseDraft } from './respond-section.js';
import type { FieldError, RichApproval } from './rich-approval.js';
import { TimeLeft } from './time-left.js';
import { useFocusTrap } from './use-focus-trap.js';

interface Props {
  request: ApprovalRequest;
  /** The example app the request comes from, shown as context. */
  app?: string;
  /**
   * Approve; for an input request, Submit with the chosen or typed value or the picked
   * values (or Yes, for a yes/no one). A confirmation's approval may carry an edit, an
   * answer in the tool's place, or a grant (`rich`), where its policy allows them.
   */
  onApprove: (choice?: InputChoice, rich?: RichApproval) => void;
  /** Reject; for an input request, Cancel (declines to answer), or No for a yes/no one. */
  onReject: (reason?: string) => void;
  /** Escape or the close button: hide the dialog without deciding. */
  onClose: () => void;
  busy?: boolean;
  /** A problem with the last decision, shown in the dialog. */
  error?: ReactNode;
  /** The server's complaint about one field of the last edit or response, shown beside it. */
  fieldError?: FieldError;
  /** Who asked (the session's owner), when known: a grant for "the user" is theirs. */
  owner?: string;
  /** The signed-in person. */
  me?: string;
}

/** What the dialog shows: the call to approve or reject, the edit form, or the answer in its place. */
type Mode = 'review' | 'edit' | 'respond';

/**
 * Marks the rest of the page inert while a modal is open: every other child of `<body>`
 * (the host app's root, whatever its id), so focus and screen readers stay in the dialog.
 */
function useInertBackground(dialog: RefObject<HTMLDivElement | null>): void {
  useEffect(() => {
    const own = dialog.current;
    const others = Array.from(document.body.children).filter(
      (child): child is HTMLElement =>
        child instanceof HTMLElement && !child.contains(own) && !child.inert,
    );
    for (const other of others) {
      other.inert = true;
      other.setAttribute('aria-hidden', 'true');
    }
    return () => {
      for (const other of others) {
        other.inert = false;
        other.removeAttribute('aria-hidden');
      }
    };
  }, [dialog]);
}

/**
 * The labels of a request's two answers: Approve/Reject for a confirmation, Submit/Cancel
 * for an input that takes a value, Yes/No for a yes/no input.
 */
export function answerLabels(request: ApprovalRequest): { yes: string; no: string } {
  if (request.kind === 'confirmation') return { yes: 'Approve', no: 'Reject' };
  if (request.options || request.freeText) return { yes: 'Submit', no: 'Cancel' };
  return { yes: 'Yes', no: 'No' };
}

/**
 * Moves focus when the dialog changes what it shows: into the form that opened (its
 * `[data-autofocus]` field), and back to the button that opened it on the way back.
 */
function useModeFocus(ref: RefObject<HTMLDivElement | null>, mode: Mode): void {
  const previous = useRef<Mode>(mode);
  useEffect(() => {
    const container = ref.current;
    const was = previous.current;
    previous.current = mode;
    if (!container || was === mode) return;
    const target =
      mode === 'review'
        ? container.querySelector<HTMLElement>(`[data-opens="${was}"]`)
        : container.querySelector<HTMLElement>('[data-autofocus]:not([disabled])');
    target?.focus();
  }, [ref, mode]);
}

/**
 * The modal where a person approves or rejects a paused tool call, or gives the input.
 * Where the tool's policy allows (`decision_policy`), a confirmation may also be edited
 * (a form from the tool's schema, showing what changes), answered in the tool's place
 * ("Respond instead"), and approved with a grant for later calls.
 */
export function ApprovalDialog({
  request,
  app,
  onApprove,
  onReject,
  onClose,
  busy,
  error,
  fieldError,
  owner,
  me = '',
}: Props) {
  const dialogRef = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const hintId = useId();
  const reasonId = useId();
  const answerId = useId();
  const [reason, setReason] = useState('');
  const [choice, setChoice] = useState<string | undefined>(undefined);
  const [picked, setPicked] = useState<string[]>([]);
  const [typed, setTyped] = useState('');
  const [mode, setMode] = useState<Mode>('review');
  /** A try to send an edit or a response that the form's own checks stopped: show them all. */
  const [tried, setTried] = useState(false);
  const policy = request.kind === 'confirmation' ? request.policy : undefined;
  const edit = useEditDraft(request);
  const response = useResponseDraft(policy?.respond_schema);
  const grant = useGrantDraft(policy?.grants);
  const now = useNow();
  // First: its clean-up, which makes the page live again, runs before the focus trap's
  // gives focus back to the opener (an inert opener cannot take it).
  useInertBackground(dialogRef);
  useFocusTrap(dialogRef);
  useModeFocus(dialogRef, mode);

  const expired = request.expiresAt ? Date.parse(request.expiresAt) <= now : false;
  const answer: InputChoice | undefined = request.multiple ? picked : typed.trim() || choice;
  // A single pick (or typed text) must be given; any number of a multiple pick will do.
  const needsAnswer = !request.multiple && Boolean(request.options || request.freeText);
  // The server said the caller may not decide it (another's approval, read by its owner):
  // it is shown, with who decides, and offers nothing to send.
  const notMine = request.canDecide === false;
  const canApprove = !busy && !expired && !notMine && (!needsAnswer || answer !== undefined);
  const isInput = request.kind === 'input';
  const labels = answerLabels(request);
  const togglePicked = (option: string) =>
    setPicked((now) => (now.includes(option) ? now.filter((o) => o !== option) : [...now, option]));
  const locked = busy || expired || notMine;
  const grantChosen = grant.grant ? { grant: grant.grant } : undefined;

  const switchTo = (next: Mode) => {
    setTried(false);
    setMode(next);
  };
  const approve = () => {
    if (grant.error) return setTried(true);
    if (grantChosen) onApprove(answer, grantChosen);
    else onApprove(answer);
  };
  const approveEdit = () => {
    if (Object.keys(edit.errors).length > 0 || grant.error) return setTried(true);
    onApprove(undefined, { editedArgs: edit.editedArgs, ...grantChosen });
  };
  const respond = () => {
    if (Object.keys(response.errors).length > 0) return setTried(true);
    onApprove(undefined, { response: response.value });
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose();
    }
  };

  return createPortal(
    <div className="hp-modal-backdrop">
      <div
        ref={dialogRef}
        className="hp-modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={request.hint ? hintId : undefined}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <header className="hp-modal__header">
          <div>
            <p className="hp-modal__eyebrow">
              <span className="hp-pulse" aria-hidden="true" />
              {isInput ? 'Input needed' : 'Approval needed'}
              {app ? <span className="hp-modal__app"> · {app}</span> : null}
            </p>
            <h2 id={titleId} className="hp-modal__title">
              {humanizeToolName(request.toolName)}
            </h2>
            <code className="hp-modal__tool">{request.toolName}</code>
          </div>
          <button
            type="button"
            className="hp-icon-button"
            aria-label="Close — decide later"
            onClick={onClose}
          >
            ×
          </button>
        </header>

        {request.hint ? (
          <p id={hintId} className="hp-modal__hint">
            {request.hint}
          </p>
        ) : null}

        {request.approvers ? (
          <p className="hp-modal__note hp-modal__deciders">
            Decided by {waitingFor(request.approvers, owner)}
            {notMine ? '; not by you.' : '.'}
          </p>
        ) : null}

        {request.options ? (
          <fieldset className="hp-choices" disabled={locked}>
            <legend className="hp-section-label">
              {request.multiple ? 'Choose any' : 'Choose one'}
            </legend>
            {request.options.map((option, index) => (
              <label key={option} className="hp-choice">
                <input
                  data-autofocus={index === 0 ? true : undefined}
                  type={request.multiple ? 'checkbox' : 'radio'}
                  name={`choice-${titleId}`}
                  value={option}
                  checked={request.multiple ? picked.includes(option) : choice === option}
                  onChange={() => (request.multiple ? togglePicked(option) : setChoice(option))}
                />
                <span>{option}</span>
              </label>
            ))}
          </fieldset>
        ) : (
          mode === 'review' && (
            <section className="hp-modal__section" aria-labelledby={`${titleId}-args`}>
              <h3 id={`${titleId}-args`} className="hp-section-label">
                Details
              </h3>
              <ArgumentList args={request.args} />
            </section>
          )
        )}

        {request.modelArgs ? (
          <section
            className="hp-modal__section hp-modal__section--edited"
            aria-labelledby={`${titleId}-edited`}
          >
            <h3 id={`${titleId}-edited`} className="hp-section-label">
              Changed by {request.editedBy ?? 'another approver'}
            </h3>
            <p className="hp-modal__note">
              The model asked for a different call; the one above is what you approve.
            </p>
            <ChangeList
              changes={argsDiff(request.modelArgs, request.args)}
              label="Changes to the model’s call"
            />
            <details className="hp-model-call">
              <summary>The model’s call</summary>
              <ArgumentList args={request.modelArgs} />
            </details>
          </section>
        ) : null}

        {mode === 'edit' ? (
          <EditSection
            edit={edit}
            fieldError={fieldError}
            showAll={tried}
            mayNeedApproval={policy?.edit_may_need_approval === true}
            disabled={Boolean(locked)}
            titleId={titleId}
          />
        ) : null}

        {mode === 'respond' ? (
          <RespondSection
            response={response}
            schema={policy?.respond_schema}
            fieldError={fieldError}
            showErrors={tried}
            disabled={Boolean(locked)}
            titleId={titleId}
          />
        ) : null}

        {policy?.grants && mode !== 'respond' ? (
          <GrantChoice
            policy={policy.grants}
            grant={grant}
            owner={owner}
            me={me}
            disabled={Boolean(locked)}
          />
        ) : null}

        {request.freeText ? (
          <div className="hp-field">
            <label htmlFor={answerId} className="hp-field__label">
              {request.options ? 'Or type your answer' : 'Your answer'}
            </label>
            <textarea
              id={answerId}
              className="hp-input"
              rows={2}
              value={typed}
              disabled={locked}
              onChange={(event) => setTyped(event.target.value)}
            />
          </div>
        ) : null}

        <TimeLeft expiresAt={request.expiresAt} now={now} />

        {isInput || mode !== 'review' ? null : (
          <div className="hp-field">
            <label htmlFor={reasonId} className="hp-field__label">
              Reason <span className="hp-field__optional">(optional, sent with a rejection)</span>
            </label>
            <input
              id={reasonId}
              className="hp-input"
              value={reason}
              disabled={locked}
              placeholder="Why not? The agent is told."
              onChange={(event) => setReason(event.target.value)}
            />
          </div>
        )}

        {error ? <div className="hp-modal__error">{error}</div> : null}

        {mode === 'review' && (policy?.editable || policy?.respond) ? (
          <div className="hp-modal__alternatives">
            {policy.editable ? (
              <button
                type="button"
                className="hp-button hp-button--secondary"
                data-opens="edit"
                disabled={locked}
                onClick={() => switchTo('edit')}
              >
                Edit
              </button>
            ) : null}
            {policy.respond ? (
              <button
                type="button"
                className="hp-button hp-button--secondary"
                data-opens="respond"
                disabled={locked}
                onClick={() => switchTo('respond')}
              >
                Respond instead
              </button>
            ) : null}
          </div>
        ) : null}

        {mode === 'review' ? (
          <footer className="hp-modal__actions">
            <button
              type="button"
              className={isInput ? 'hp-button hp-button--secondary' : 'hp-button hp-button--danger'}
              disabled={locked}
              onClick={() => onReject(reason.trim() || undefined)}
            >
              {labels.no}
            </button>
            <button
              type="button"
              className="hp-button hp-button--primary"
              data-autofocus={request.options ? undefined : true}
              disabled={!canApprove}
              onClick={approve}
            >
              {busy ? 'Sending…' : labels.yes}
            </button>
          </footer>
        ) : (
          <footer className="hp-modal__actions">
            <button
              type="button"
              className="hp-button hp-button--ghost"
              disabled={busy}
              onClick={() => switchTo('review')}
            >
              Back
            </button>
            {mode === 'edit' ? (
              <button
                type="button"
                className="hp-button hp-button--primary"
                disabled={locked || edit.changes.length === 0}
                onClick={approveEdit}
              >
                {busy ? 'Sending…' : 'Approve with changes'}
              </button>
            ) : (
              <button
                type="button"
                className="hp-button hp-button--primary"
                disabled={locked}
                onClick={respond}
              >
                {busy ? 'Sending…' : 'Send response'}
              </button>
            )}
          </footer>
        )}
      </div>
    </div>,
    document.body,
  );
}
