import { type ApprovalRequest, humanizeToolName, TimeLeft, useNow } from 'holdpoint/react';

interface Props {
  request: ApprovalRequest;
  count: number;
  onReview: () => void;
}

/** Shown while an approval waits and its dialog is closed: the way back to it. */
export function PendingBanner({ request, count, onReview }: Props) {
  const now = useNow();
  return (
    <div className="pending-banner" role="status">
      <span className="hp-pulse" aria-hidden="true" />
      <div className="pending-banner__text">
        <strong>
          {request.kind === 'input' ? 'Input needed' : 'Approval needed'}:{' '}
          {humanizeToolName(request.toolName)}
        </strong>
        {count > 1 ? <span> (+{count - 1} more)</span> : null}
        <TimeLeft expiresAt={request.expiresAt} now={now} />
      </div>
      <button
        type="button"
        className="hp-button hp-button--primary hp-button--small"
        onClick={onReview}
      >
        Review approval
      </button>
    </div>
  );
}
