import { humanizeToolName } from '../approvals/approval-request.js';
import { askedPeople } from '../approvals/approvers-text.js';
import { ArgumentList } from '../approvals/argument-list.js';
import type { InboxApproval } from '../client/api-types.js';
import { formatDuration } from '../ui/relative-time.js';

/** What happened to an approval decided (or tried) from this page. */
export type ItemOutcome =
  | { state: 'approved'; detail: string }
  /** `reason`: why it was rejected, as the decider gave it (the agent reads it too). */
  | { state: 'rejected'; detail: string; reason?: string }
  | { state: 'expired' | 'already-decided' | 'cancelled'; detail: string };

/** The props of an ApprovalCard. */
export interface ApprovalCardProps {
  approval: InboxApproval;
  /** The time it is, in ms (`Date.now()`, refreshed by the caller). */
  now: number;
  /** What became of it, once decided (or tried) here: shown in place of Review. */
  outcome?: ItemOutcome;
  onReview: () => void;
  /** Where its conversation is in your app, for an "Open conversation" link. */
  conversationHref?: string;
}

const OUTCOME_LABEL: Record<ItemOutcome['state'], string> = {
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
  'already-decided': 'Already decided',
  cancelled: 'Cancelled',
};

/** One pending approval: what, where, how old, how long it has left, and Review. */
export function ApprovalCard({
  approval,
  now,
  outcome,
  onReview,
  conversationHref,
}: ApprovalCardProps) {
  const age = now - Date.parse(approval.created_at);
  const left = Date.parse(approval.expires_at) - now;
  const expired = left <= 0;
  const state = outcome?.state ?? (expired ? 'expired' : undefined);
  return (
    <li className={`hp-inbox-item${state ? ` hp-inbox-item--${state}` : ''}`}>
      <div className="hp-inbox-item__main">
        <div className="hp-inbox-item__title-row">
          <h2 className="hp-inbox-item__title">{humanizeToolName(approval.tool_name)}</h2>
          <span className="hp-badge hp-badge--neutral">{approval.app}</span>
          <span className="hp-badge hp-badge--neutral">
            {approval.kind === 'input' ? 'input' : 'confirmation'}
          </span>
        </div>
        {approval.hint ? <p className="hp-inbox-item__hint">{approval.hint}</p> : null}
        <ArgumentList args={approval.args} />
        <p className="hp-inbox-item__meta">
          <span>
            Requested <time dateTime={approval.created_at}>{formatDuration(age)} ago</time>
          </span>
          {/* Decided here, nothing counts down any more: its outcome says what became of it. */}
          {outcome ? null : (
            <>
              <span aria-hidden="true"> · </span>
              {expired ? (
                <span className="hp-inbox-item__expiry hp-inbox-item__expiry--over">Expired</span>
              ) : (
                <span className={left < 60_000 ? 'hp-inbox-item__expiry--soon' : undefined}>
                  Expires in <time dateTime={approval.expires_at}>{formatDuration(left)}</time>
                </span>
              )}
            </>
          )}
          <span aria-hidden="true"> · </span>
          <span>
            by <strong>{approval.user_id}</strong>
          </span>
          <span aria-hidden="true"> · </span>
          <span>asks {askedPeople(approval.approvers, approval.user_id).join(', ')}</span>
          {conversationHref ? (
            <>
              <span aria-hidden="true"> · </span>
              <a href={conversationHref} className="hp-link">
                Open conversation
              </a>
            </>
          ) : null}
        </p>
      </div>
      <div className="hp-inbox-item__side">
        {state ? (
          <p className={`hp-inbox-item__outcome hp-inbox-item__outcome--${state}`} role="status">
            <strong>{OUTCOME_LABEL[state]}</strong>
            {outcome?.state === 'rejected' && outcome.reason ? (
              <q className="hp-inbox-item__reason">{outcome.reason}</q>
            ) : null}
            <span>{outcome?.detail ?? 'Nobody decided in time.'}</span>
          </p>
        ) : (
          <button
            type="button"
            className="hp-button hp-button--primary"
            onClick={onReview}
            aria-label={`Review ${humanizeToolName(approval.tool_name)} (${approval.app})`}
          >
            Review
          </button>
        )}
      </div>
    </li>
  );
}
