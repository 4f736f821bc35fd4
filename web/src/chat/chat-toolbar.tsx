import type { ApiApp } from '../api/api-types';
import { type ConnectionMode, MODES } from './chat-settings';

interface Props {
  /** The apps the server serves. */
  apps: ApiApp[];
  app: string;
  mode: ConnectionMode;
  /** The app is fixed once a conversation has a session. */
  appLocked: boolean;
  onApp: (app: string) => void;
  onMode: (mode: ConnectionMode) => void;
  onNewChat: () => void;
  /** Whether the list of the user's conversations is shown. */
  conversationsOpen: boolean;
  onConversations: () => void;
}

/** Which app to talk to, over which connection, and a fresh start. */
export function ChatToolbar({
  apps,
  app,
  mode,
  appLocked,
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
