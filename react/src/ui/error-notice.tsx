import { type ApiError, explain } from '../client/api-error.js';

interface Props {
  error: ApiError;
  onRetry?: () => void;
  onDismiss?: () => void;
}

/** A visible, human explanation of an error, with Retry when trying again can help. */
export function ErrorNotice({ error, onRetry, onDismiss }: Props) {
  const { title, detail, retry, code } = explain(error);
  return (
    <div className="hp-notice hp-notice--error" role="alert">
      <div className="hp-notice__body">
        <strong className="hp-notice__title">{title}</strong>
        <p className="hp-notice__detail">{detail}</p>
        {error.message && error.message !== detail ? (
          <p className="hp-notice__code">
            <code>{code}</code> {error.message}
          </p>
        ) : null}
      </div>
      <div className="hp-notice__actions">
        {retry && onRetry ? (
          <button type="button" className="hp-button hp-button--secondary" onClick={onRetry}>
            Retry
          </button>
        ) : null}
        {onDismiss ? (
          <button type="button" className="hp-button hp-button--ghost" onClick={onDismiss}>
            Dismiss
          </button>
        ) : null}
      </div>
    </div>
  );
}
