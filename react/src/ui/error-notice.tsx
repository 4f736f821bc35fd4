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
    <div className="notice notice--error" role="alert">
      <div className="notice__body">
        <strong className="notice__title">{title}</strong>
        <p className="notice__detail">{detail}</p>
        {error.message && error.message !== detail ? (
          <p className="notice__code">
            <code>{code}</code> {error.message}
          </p>
        ) : null}
      </div>
      <div className="notice__actions">
        {retry && onRetry ? (
          <button type="button" className="button button--secondary" onClick={onRetry}>
            Retry
          </button>
        ) : null}
        {onDismiss ? (
          <button type="button" className="button button--ghost" onClick={onDismiss}>
            Dismiss
          </button>
        ) : null}
      </div>
    </div>
  );
}
