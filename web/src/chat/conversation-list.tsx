import type { ApiApp } from 'holdpoint/react';
import { ErrorNotice, formatClock } from 'holdpoint/react';
import { useConversations } from './use-conversations';

interface Props {
  /** The apps the server serves, for their labels. */
  apps: ApiApp[];
  /** The session the chat shows now, if any. */
  current?: string;
  /** Reopens a session in the chat. */
  onOpen: (sessionId: string) => void;
}

/** The user's conversations, most recently updated first; one click reopens one. */
export function ConversationList({ apps, current, onOpen }: Props) {
  const { sessions, loading, error, hasMore, reload, showMore } = useConversations();
  const label = (app: string) => apps.find((a) => a.name === app)?.label ?? app;
  return (
    <nav className="conversations" aria-label="Conversations">
      {error ? <ErrorNotice error={error} onRetry={reload} /> : null}
      {!loading && !error && sessions.length === 0 ? (
        <p className="conversations__empty">No conversations yet.</p>
      ) : null}
      <ul className="conversations__list">
        {sessions.map((session) => (
          <li key={session.session_id}>
            <button
              type="button"
              className="conversations__item"
              aria-current={session.session_id === current ? 'true' : undefined}
              onClick={() => onOpen(session.session_id)}
            >
              <span className="conversations__title">
                {session.title ?? 'Untitled conversation'}
              </span>
              <span className="conversations__meta">
                {label(session.app)} · {formatClock(session.updated_at)}
                {session.waiting_for_approval ? (
                  <span className="conversations__badge"> · waiting for approval</span>
                ) : null}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {loading ? (
        <p className="hp-loading" role="status">
          Loading conversations…
        </p>
      ) : null}
      {hasMore && !loading ? (
        <button type="button" className="hp-button hp-button--ghost" onClick={showMore}>
          Show more
        </button>
      ) : null}
    </nav>
  );
}
