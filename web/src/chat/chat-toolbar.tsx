import type { ApiApp } from '../api/api-types';
import { type ConnectionMode, MODES } from './chat-settings';

interface Props {
  /** The apps the server serves. */
  apps: ApiApp[];
  app: string;
  mode: ConnectionMode;
  /** The app is fixed once a conversation has a session. */
  appLocked: boolean;
  /**
   * Developer options (the connection) are offered: under the server's development
   * sign-in only; with a real sign-in the page is as its users see it.
   */
  developer: boolean;
  onApp: (app: string) => void;
  onMode: (mode: ConnectionMode) => void;
  onNewChat: () => void;
  /** Whether the list of the user's conversations is shown. */
  conversationsOpen: boolean;
  onConversations: () => void;
}

/** Which app to talk to, a fresh start, and (developers) over which connection. */
export function ChatToolbar({
  apps,
  app,
  mode,
  appLocked,
  developer,
  onApp,
  onMode,
  onNewChat,
  conversationsOpen,
  onConversations,
}: Props) {
  return (
    <div className="toolbar">
      <fieldset className="segmented" disabled={appLocked}>
        <legend className="toolbar__legend">App</legend>
        {apps.map((item) => (
          <label key={item.name} className="segmented__option" title={item.description}>
            <input
              type="radio"
              name="app"
              value={item.name}
              checked={app === item.name}
              onChange={() => onApp(item.name)}
            />
            <span>{item.label}</span>
          </label>
        ))}
      </fieldset>
      {developer ? (
        <details className="toolbar__developer">
          <summary className="toolbar__developer-summary">Developer options</summary>
          <p className="toolbar__developer-note">
            Development sign-in: the name and roles above are believed from this machine only.
          </p>
          <fieldset className="segmented">
            <legend className="toolbar__legend">Connection</legend>
            {MODES.map((item) => (
              <label key={item.id} className="segmented__option" title={item.description}>
                <input
                  type="radio"
                  name="mode"
                  value={item.id}
                  checked={mode === item.id}
                  onChange={() => onMode(item.id)}
                />
                <span>{item.label}</span>
              </label>
            ))}
          </fieldset>
        </details>
      ) : null}
      <button
        type="button"
        className="button button--ghost toolbar__conversations"
        aria-expanded={conversationsOpen}
        onClick={onConversations}
      >
        Conversations
      </button>
      <button type="button" className="button button--secondary toolbar__new" onClick={onNewChat}>
        New chat
      </button>
    </div>
  );
}
