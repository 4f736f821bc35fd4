import type { ApiDecision } from 'holdpoint/react';
import {
  type ApprovalRequest,
  argsDiff,
  askedPeople,
  ChangeList,
  decisionSource,
  decisionVerb,
  formatClock,
  humanizeToolName,
  TimeLeft,
  useNow,
  waitingFor,
} from 'holdpoint/react';
import type { ReactNode } from 'react';

interface Props {
  /** The approval waiting for someone else (the signed-in person may not decide it). */
  request: ApprovalRequest;
  /** How many approvals wait in all. */
  count: number;
  /** The session's owner, when known: who asked. */
  owner?: string;
  /** The signed-in person. */
  user: string;
  /** The votes recorded on it so far (a quorum collects several). */
  votes: ApiDecision[];
  /** Cancels the request; offered to the session's owner. */
  onCancel: () => void;
  busy: boolean;
  error?: ReactNode;
}

/**
 * Shown instead of a decision dialog while an approval waits for others: whom it waits
 * for, who has been asked, an approver's edit in force, the votes so far, the time left,
 * and Cancel for the one who asked.
 */
export function WaitingPanel({ request, count, owner, user, votes, onCancel, busy, error }: Props) {
  const now = useNow();
  const { approvers } = request;
  const mine = owner === undefined || owner === user;
  const onlyOthers = mine && approvers?.requester_may_approve === false;
  const approvedBy = votes.filter((v) => v.approved);
  return (
    <section className="waiting-panel" aria-label="Waiting for an approver">
      <span className="hp-pulse" aria-hidden="true" />
      <div className="waiting-panel__text">
        <p className="waiting-panel__title" role="status">
          <strong>Waiting for {approvers ? waitingFor(approvers, owner) : 'an approver'}</strong>
          {count > 1 ? <span> (+{count - 1} more)</span> : null}
        </p>
        <p>
          {humanizeToolName(request.toolName)}
          {request.hint ? `: ${request.hint}` : ''}
        </p>
        {approvers ? (
          <p className="waiting-panel__asked">
            Asked: {askedPeople(approvers, owner).join(', ') || 'nobody'}
            {approvers.quorum > 1 ? ` · ${approvedBy.length} of ${approvers.quorum} approved` : ''}
          </p>
        ) : null}
        {request.modelArgs ? (
          <div className="waiting-panel__edited">
            <p>Changed by {request.editedBy ?? 'an approver'}:</p>
            <ChangeList
              changes={argsDiff(request.modelArgs, request.args)}
              label="Changes to the call"
            />
          </div>
        ) : null}
        {onlyOthers ? (
          <p>You asked for it, so someone else must approve it. You may cancel it.</p>
        ) : null}
        {votes.length > 0 ? (
          <ul className="waiting-panel__votes" aria-label="Decided so far">
            {votes.map((vote) => (
              <li key={`${vote.decided_by}-${vote.at}`}>
                {decisionVerb(vote, false)} by <strong>{vote.decided_by}</strong>
                {decisionSource(vote)} · <time dateTime={vote.at}>{formatClock(vote.at, now)}</time>
              </li>
            ))}
          </ul>
        ) : null}
        <TimeLeft expiresAt={request.expiresAt} now={now} />
        {error}
      </div>
      {mine ? (
        <button
          type="button"
          className="hp-button hp-button--secondary hp-button--small"
          disabled={busy}
          onClick={onCancel}
        >
          {busy ? 'Cancelling…' : 'Cancel request'}
        </button>
      ) : null}
    </section>
  );
}
