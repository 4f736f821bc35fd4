import { useEffect, useState } from 'react';
import { toApiError } from '../api/api-error';
import type { InboxApproval } from '../api/api-types';
import { decideApproval } from '../api/holdpoint-api';
import { ApprovalDialog } from '../approvals/approval-dialog';
import { fromApi } from '../approvals/approval-request';
import type { InputChoice } from '../approvals/input-answer';
import {
  decisionBody,
  fieldErrorOf,
  type RichApproval,
  stillWaitsNote,
} from '../approvals/rich-approval';
import { useCurrentUser } from '../identity/identity';
import { ErrorNotice } from '../ui/error-notice';
import { useNow } from '../ui/use-now';
import { EnableNotifications } from './approval-notifications';
import { useInboxFeed } from './inbox-feed';
import { InboxItem, type ItemOutcome } from './inbox-item';
import { useInbox } from './use-inbox';

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

/**
 * The approvals the signed-in person can decide, across sessions (theirs, and others'
 * that ask them: by role or by name), decided in place.
 */
export function InboxPage() {
  const user = useCurrentUser();
  const feed = useInboxFeed();
  const { approvals, loading, error, hasMore, reload, showMore } = useInbox(user, feed.version);
  const now = useNow(5000);
  // Decided rows stay visible with their outcome after the server stops listing them.
  const [kept, setKept] = useState<Map<string, { approval: InboxApproval; outcome: ItemOutcome }>>(
    new Map(),
  );
  const [reviewing, setReviewing] = useState<InboxApproval>();
  const [busy, setBusy] = useState(false);
  const [decisionError, setDecisionError] = useState<ReturnType<typeof toApiError>>();

  const record = (approval: InboxApproval, outcome: ItemOutcome) =>
    setKept((prev) => new Map(prev).set(approval.approval_id, { approval, outcome }));

  // A call someone's edit changed while it was open (ARGS_MISMATCH): show it as it stands.
  useEffect(() => {
    if (!reviewing) return;
    const fresh = approvals.find((a) => a.approval_id === reviewing.approval_id);
    if (fresh && fresh.args_hash !== reviewing.args_hash) setReviewing(fresh);
  }, [approvals, reviewing]);

  const decide = async (
    approval: InboxApproval,
    approved: boolean,
    choice?: InputChoice,
    reason?: string,
    rich?: RichApproval,
  ) => {
    const request = fromApi(approval);
    setBusy(true);
    setDecisionError(undefined);
    try {
      const outcome = await decideApproval(
        approval.approval_id,
        decisionBody(request, approved, { choice, reason, rich }),
        user,
      );
      const detail =
        stillWaitsNote(
          outcome.status === 'pending_approval' &&
            outcome.approvals.some((a) => a.approval_id === approval.approval_id),
          rich,
        ) ?? resultDetail(outcome.status);
      record(
        approval,
        approved
          ? { state: 'approved', detail }
          : { state: 'rejected', detail, ...(reason ? { reason } : {}) },
      );
      setReviewing(undefined);
      void reload();
    } catch (caught) {
      const failure = toApiError(caught);
      const state = OUTCOME_OF_ERROR[failure.code];
      if (state) {
        record(approval, { state, detail: failure.message });
        setReviewing(undefined);
        void reload();
      } else {
        setDecisionError(failure);
        if (failure.code === 'ARGS_MISMATCH') void reload();
      }
    } finally {
      setBusy(false);
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
    <main className="page page--inbox" id="main">
      <header className="page__header">
        <div>
          <h1 className="page__title">Approvals you can decide</h1>
          <p className="page__subtitle">
            Waiting for <strong>{user}</strong>, in any conversation that asks you; soonest expiry
            first.
          </p>
        </div>
        <div className="page__actions">
          <EnableNotifications />
          <button type="button" className="button button--secondary" onClick={() => void reload()}>
            Refresh
          </button>
        </div>
      </header>
      {error ? <ErrorNotice error={error} onRetry={() => void reload()} /> : null}
      {loading && rows.length === 0 ? (
        <p className="loading" role="status">
          Loading approvals…
        </p>
      ) : null}
      {!loading && rows.length === 0 && !error ? (
        <div className="inbox-empty">
          <p className="inbox-empty__title">Nothing waits for you</p>
          <p>When an agent pauses for a decision you may make, it shows up here.</p>
        </div>
      ) : null}
      {rows.length > 0 ? (
        <>
          <p className="visually-hidden" role="status">
            {open} pending
          </p>
          <ul className="inbox-list" aria-label="Pending approvals">
            {rows.map(({ approval, outcome }) => (
              <InboxItem
                key={approval.approval_id}
                approval={approval}
                now={now}
                outcome={outcome}
                onReview={() => {
                  setDecisionError(undefined);
                  setReviewing(approval);
                }}
              />
            ))}
          </ul>
          {hasMore ? (
            <button type="button" className="button button--secondary" onClick={showMore}>
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
          onApprove={(choice, rich) => void decide(reviewing, true, choice, undefined, rich)}
          onReject={(reason) => void decide(reviewing, false, undefined, reason)}
          onClose={() => setReviewing(undefined)}
        />
      ) : null}
    </main>
  );
}
