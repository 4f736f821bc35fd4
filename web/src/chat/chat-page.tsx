import { ErrorNotice } from 'holdpoint/react';
import { ChatView } from './chat-view';
import type { AppsState } from './use-apps';

interface Props {
  /** The server's apps, read once when the UI starts. */
  apps: AppsState;
  /** Developer options are offered (the server's development sign-in). */
  developer?: boolean;
}

/** The chat page: once the server's apps are here, the chat with them. */
export function ChatPage({ apps, developer }: Props) {
  return (
    <main className="page page--chat" id="main">
      {apps.state === 'loading' ? (
        <p className="hp-loading" role="status">
          Loading apps…
        </p>
      ) : null}
      {apps.state === 'failed' ? (
        <div className="chat chat--failed">
          <ErrorNotice error={apps.error} onRetry={apps.retry} />
        </div>
      ) : null}
      {apps.state === 'ready' ? <ChatView catalog={apps.catalog} developer={developer} /> : null}
    </main>
  );
}
