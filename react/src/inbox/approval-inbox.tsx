import { useEffect, useState } from 'react';
import { ApprovalDialog } from '../approvals/approval-dialog.js';
import { fromApi } from '../approvals/approval-request.js';
import { fieldErrorOf, stillWaitsNote } from '../approvals/rich-approval.js';
import type { ApiError } from '../client/api-error.js';
import type { InboxApproval } from '../client/api-types.js';
import { useHoldpoint } from '../holdpoint-provider.js';
import { type DecisionChoice, useDecideApproval } from '../hooks/use-decide-approval.js';
import { usePendingApprovals } from '../hooks/use-pending-approvals.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { useNow } from '../ui/use-now.js';
import { ApprovalCard, type ItemOutcome } from './approval-card.js';

/** What a refusal means for the row: the approval is over, whoever ended it. */
const OUTCOME_OF_ERROR: Record<string, ItemOutcome['state']> = {
  APPROVAL_EXPIRED: 'expired',
  ALREADY_DECIDED: 'already-decided',
  PAUSE_CANCELLED: 'cancelled',
  APPROVAL_NOT_FOUND: 'already-decided',
};

function resultDetail(status: string): string {
  if (status === 'completed') return 'The run resumed and completed.';
  if (status === 'pending_approval') return 'The run resumed and is waiting again.';
  return `The run resumed (${status}).`;
}

/** The props of an ApprovalInbox. */
export interface ApprovalInboxProps {
  /** Where an approval's conversation is in your app (an "Open conversation" link), if anywhere. */
  conversationHref?: (approval: InboxApproval) => string;
  /** How many approvals a page shows (default: the server's). */
  pageSize?: number;
}

/**
 * The approvals the caller may decide, across sessions (theirs, and others' that ask
 * them: by role or by name), live, each reviewed and decided in place in ApprovalDialog.
 * A decided row stays with its outcome after the server stops listing it.
 */
export function ApprovalInbox({ conversationHref, pageSize }: ApprovalInboxProps) {
  const { user } = useHoldpoint();
  const { approvals, loading, error, hasMore, reload, showMore } = usePendingApprovals({
    pageSize,
  });
  const { decide, busy, error: decisionError, clearError } = useDecideApproval();
  const now = useNow(5000);
  const [kept, setKept] = useState<Map<string, { approval: InboxApproval; outcome: ItemOutcome }>>(
    new Map(),
  );
  const [reviewing, setReviewing] = useState<InboxApproval>();

  const record = (approval: InboxApproval, outcome: ItemOutcome) =>
    setKept((prev) => new Map(prev).set(approval.approval_id, { approval, outcome }));

  // A call someone's edit changed while it was open (ARGS_MISMATCH): show it as it stands.
  useEffect(() => {
    if (!reviewing) return;
    const fresh = approvals.find((a) => a.approval_id === reviewing.approval_id);
    if (fresh && fresh.args_hash !== reviewing.args_hash) setReviewing(fresh);
  }, [approvals, reviewing]);

  const answer = async (
    approval: InboxApproval,
    approved: boolean,
    choice: DecisionChoice,
  ) => {
    try {
      const outcome = await decide(approval, approved, choice);
      const detail =
        stillWaitsNote(
          outcome.status === 'pending_approval' &&
            outcome.approvals.some((a) => a.approval_id === approval.approval_id),
          choice.rich,
        ) ?? resultDetail(outcome.status);
      const { reason } = choice;
      record(
        approval,
        approved
          ? { state: 'approved', detail }
          : { state: 'rejected', detail, ...(reason ? { reason } : {}) },
      );
      setReviewing(undefined);
      void reload();
    } catch (caught) {
      const failure = caught as ApiError;
      const state = OUTCOME_OF_ERROR[failure.code];
      if (state) {
        clearError();
        record(approval, { state, detail: failure.message });
        setReviewing(undefined);
        void reload();
      } else if (failure.code === 'ARGS_MISMATCH') {
        void reload();
      }
    }
  };

  const listed = new Set(approvals.map((a) => a.approval_id));
  const rows = [
    ...approvals.map((approval) => ({
      approval,
      outcome: kept.get(approval.approval_id)?.outcome,
    })),
    ...[...kept.values()].filter((k) => !listed.has(k.approval.approval_id)),
  ];
  const open = rows.filter((r) => !r.outcome).length;

  return (
    <div className="hp-approval-inbox">
      {error ? <ErrorNotice error={error} onRetry={() => void reload()} /> : null}
      {loading && rows.length === 0 ? (
        <p className="hp-loading" role="status">
          Loading approvals…
        </p>
      ) : null}
      {!loading && rows.length === 0 && !error ? (
        <div className="hp-inbox-empty">
          <p className="hp-inbox-empty__title">Nothing waits for you</p>
          <p>When an agent pauses for a decision you may make, it shows up here.</p>
        </div>
      ) : null}
      {rows.length > 0 ? (
        <>
          <p className="hp-visually-hidden" role="status">
            {open} pending
          </p>
          <ul className="hp-inbox-list" aria-label="Pending approvals">
            {rows.map(({ approval, outcome }) => (
              <ApprovalCard
                key={approval.approval_id}
                approval={approval}
                now={now}
                outcome={outcome}
                conversationHref={conversationHref?.(approval)}
                onReview={() => {
                  clearError();
                  setReviewing(approval);
                }}
              />
            ))}
          </ul>
          {hasMore ? (
            <button type="button" className="hp-button hp-button--secondary" onClick={showMore}>
              Show more
            </button>
          ) : null}
        </>
      ) : null}
      {reviewing ? (
        <ApprovalDialog
          key={`${reviewing.approval_id}-${reviewing.args_hash}`}
          request={fromApi(reviewing)}
          app={reviewing.app}
          busy={busy}
          error={decisionError ? <ErrorNotice error={decisionError} /> : undefined}
          fieldError={fieldErrorOf(decisionError)}
          owner={reviewing.user_id}
          me={user}
          onApprove={(choice, rich) => void answer(reviewing, true, { choice, rich })}
          onReject={(reason) => void answer(reviewing, false, { reason })}
          onClose={() => setReviewing(undefined)}
        />
      ) : null}
    </div>
  );
}
