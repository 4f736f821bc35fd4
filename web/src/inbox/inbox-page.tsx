import { ApprovalInbox, type InboxApproval, useInboxRefresh } from 'holdpoint/react';
import { useCurrentUser } from '../identity/identity';
import { EnableNotifications } from './approval-notifications';

/** An approval's conversation in this UI: the chat, on its session and app. */
function conversationHref(approval: InboxApproval): string {
  return `/?${new URLSearchParams({ session: approval.session_id, app: approval.app })}`;
}

/**
 * The approvals the signed-in person can decide, across sessions (theirs, and others'
 * that ask them: by role or by name), decided in place: holdpoint/react's ApprovalInbox,
 * live by the server's push; Refresh reads it again at once.
 */
export function InboxPage() {
  const user = useCurrentUser();
  const refresh = useInboxRefresh();
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
          <button type="button" className="hp-button hp-button--secondary" onClick={refresh}>
            Refresh
          </button>
        </div>
      </header>
      <ApprovalInbox conversationHref={conversationHref} />
    </main>
  );
}
