import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useNow } from '../ui/use-now';
import { type ApprovalRequest, humanizeToolName } from './approval-request';
import { ArgumentList } from './argument-list';
import type { InputChoice } from './input-answer';
import { TimeLeft } from './time-left';
import { useFocusTrap } from './use-focus-trap';

interface Props {
  request: ApprovalRequest;
  /** The example app the request comes from, shown as context. */
  app?: string;
  /**
   * Approve; for an input request, Submit with the chosen or typed value or the picked
   * values (or Yes, for a yes/no one).
   */
  onApprove: (choice?: InputChoice) => void;
  /** Reject; for an input request, Cancel (declines to answer), or No for a yes/no one. */
  onReject: (reason?: string) => void;
  /** Escape or the close button: hide the dialog without deciding. */
  onClose: () => void;
  busy?: boolean;
  /** A problem with the last decision, shown in the dialog. */
  error?: ReactNode;
}

/** Marks the rest of the page inert while a modal is open. */
function useInertBackground(): void {
  useEffect(() => {
    const root = document.getElementById('root');
    if (!root) return;
    root.inert = true;
    root.setAttribute('aria-hidden', 'true');
    return () => {
      root.inert = false;
      root.removeAttribute('aria-hidden');
    };
  }, []);
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

/** The modal where a person approves or rejects a paused tool call, or gives the input. */
export function ApprovalDialog({ request, app, onApprove, onReject, onClose, busy, error }: Props) {
  const dialogRef = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const hintId = useId();
  const reasonId = useId();
  const answerId = useId();
  const [reason, setReason] = useState('');
  const [choice, setChoice] = useState<string | undefined>(undefined);
  const [picked, setPicked] = useState<string[]>([]);
  const [typed, setTyped] = useState('');
  const now = useNow();
  useFocusTrap(dialogRef);
  useInertBackground();

  const expired = request.expiresAt ? Date.parse(request.expiresAt) <= now : false;
  const answer: InputChoice | undefined = request.multiple ? picked : typed.trim() || choice;
  // A single pick (or typed text) must be given; any number of a multiple pick will do.
  const needsAnswer = !request.multiple && Boolean(request.options || request.freeText);
  const canApprove = !busy && !expired && (!needsAnswer || answer !== undefined);
  const isInput = request.kind === 'input';
  const labels = answerLabels(request);
  const togglePicked = (option: string) =>
    setPicked((now) => (now.includes(option) ? now.filter((o) => o !== option) : [...now, option]));

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose();
    }
  };

  return createPortal(
    <div className="modal-backdrop">
      <div
        ref={dialogRef}
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={request.hint ? hintId : undefined}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <header className="modal__header">
          <div>
            <p className="modal__eyebrow">
              <span className="pulse" aria-hidden="true" />
              {isInput ? 'Input needed' : 'Approval needed'}
              {app ? <span className="modal__app"> · {app}</span> : null}
            </p>
            <h2 id={titleId} className="modal__title">
              {humanizeToolName(request.toolName)}
            </h2>
            <code className="modal__tool">{request.toolName}</code>
          </div>
          <button
            type="button"
            className="icon-button"
            aria-label="Close — decide later"
            onClick={onClose}
          >
            ×
          </button>
        </header>

        {request.hint ? (
          <p id={hintId} className="modal__hint">
            {request.hint}
          </p>
        ) : null}

        {request.options ? (
          <fieldset className="choices" disabled={busy || expired}>
            <legend className="section-label">
              {request.multiple ? 'Choose any' : 'Choose one'}
            </legend>
            {request.options.map((option, index) => (
              <label key={option} className="choice">
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
          <section className="modal__section" aria-labelledby={`${titleId}-args`}>
            <h3 id={`${titleId}-args`} className="section-label">
              Details
            </h3>
            <ArgumentList args={request.args} />
          </section>
        )}

        {request.freeText ? (
          <div className="field">
            <label htmlFor={answerId} className="field__label">
              {request.options ? 'Or type your answer' : 'Your answer'}
            </label>
            <textarea
              id={answerId}
              className="input"
              rows={2}
              value={typed}
              disabled={busy || expired}
              onChange={(event) => setTyped(event.target.value)}
            />
          </div>
        ) : null}

        <TimeLeft expiresAt={request.expiresAt} now={now} />

        {isInput ? null : (
          <div className="field">
            <label htmlFor={reasonId} className="field__label">
              Reason <span className="field__optional">(optional, sent with a rejection)</span>
            </label>
            <input
              id={reasonId}
              className="input"
              value={reason}
              disabled={busy || expired}
              placeholder="Why not? The agent is told."
              onChange={(event) => setReason(event.target.value)}
            />
          </div>
        )}

        {error ? <div className="modal__error">{error}</div> : null}

        <footer className="modal__actions">
          <button
            type="button"
            className={isInput ? 'button button--secondary' : 'button button--danger'}
            disabled={busy || expired}
            onClick={() => onReject(reason.trim() || undefined)}
          >
            {labels.no}
          </button>
          <button
            type="button"
            className="button button--primary"
            data-autofocus={request.options ? undefined : true}
            disabled={!canApprove}
            onClick={() => onApprove(answer)}
          >
            {busy ? 'Sending…' : labels.yes}
          </button>
        </footer>
      </div>
    </div>,
    document.body,
  );
}
