import type { ApiApp } from 'holdpoint/react';
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

/** A choice of one among a few, as a row of toggles: the app, the connection. */
function Segmented<T extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  disabled,
}: {
  legend: string;
  name: string;
  options: { value: T; label: string; description?: string }[];
  value: T;
  onChange: (value: T) => void;
  disabled?: boolean;
}) {
  return (
    <fieldset className="segmented" disabled={disabled}>
      <legend className="toolbar__legend">{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className="segmented__option" title={option.description}>
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          <span>{option.label}</span>
        </label>
      ))}
    </fieldset>
  );
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
      <Segmented
        legend="App"
        name="app"
        disabled={appLocked}
        options={apps.map((item) => ({
          value: item.name,
          label: item.label,
          description: item.description,
        }))}
        value={app}
        onChange={onApp}
      />
      {developer ? (
        <details className="toolbar__developer">
          <summary className="toolbar__developer-summary">Developer options</summary>
          <p className="toolbar__developer-note">
            Development sign-in: who you are is set in the header and believed from this machine
            only.
          </p>
          <Segmented
            legend="Connection"
            name="mode"
            options={MODES.map((item) => ({
              value: item.id,
              label: item.label,
              description: item.description,
            }))}
            value={mode}
            onChange={onMode}
          />
        </details>
      ) : null}
      <button
        type="button"
        className="hp-button hp-button--ghost toolbar__conversations"
        aria-expanded={conversationsOpen}
        onClick={onConversations}
      >
        Conversations
      </button>
      <button
        type="button"
        className="hp-button hp-button--secondary toolbar__new"
        onClick={onNewChat}
      >
        New chat
      </button>
    </div>
  );
}
