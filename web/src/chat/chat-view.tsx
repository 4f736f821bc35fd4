import type { ApiApproval, ApiDecision, ChatMessage } from 'holdpoint/react';
import { type ApiError, ErrorNotice, toApiError } from 'holdpoint/react';
import { useCallback, useEffect, useState } from 'react';
import { type AppCatalog, getSessionMessages } from '../api/holdpoint-api';
import { type ChatLocation, readChatLocation, writeChatLocation } from './chat-location';
import { ChatSession } from './chat-session';
import type { ConnectionMode } from './chat-settings';
import { ChatToolbar } from './chat-toolbar';
import { ConversationList } from './conversation-list';

type Loaded =
  | { state: 'loading' }
  | { state: 'failed'; error: ApiError }
  | {
      state: 'ready';
      key: string;
      messages: ChatMessage[];
      pending: ApiApproval[];
      owner?: string;
      decisions: ApiDecision[];
      running: boolean;
    };

const newKey = () => `chat-${crypto.randomUUID()}`;
const fresh = (): Loaded => ({
  state: 'ready',
  key: newKey(),
  messages: [],
  pending: [],
  running: false,
  decisions: [],
});

interface Props {
  /** The apps the server serves. */
  catalog: AppCatalog;
  /** Developer options are offered (the server's development sign-in). */
  developer?: boolean;
}

/** The chat: pick an app and a connection, talk, approve. The session lives in the URL. */
export function ChatView({ catalog, developer = false }: Props) {
  const [location, setLocation] = useState<ChatLocation>(() =>
    readChatLocation(catalog.defaultApp),
  );
  const [loaded, setLoaded] = useState<Loaded>(() =>
    location.session ? { state: 'loading' } : fresh(),
  );

  const update = useCallback((change: Partial<ChatLocation>) => {
    setLocation((prev) => {
      const next = { ...prev, ...change };
      writeChatLocation(next);
      return next;
    });
  }, []);

  const restore = useCallback(
    async (session: string) => {
      setLoaded({ state: 'loading' });
      try {
        const state = await getSessionMessages(session);
        update({ app: state.app });
        setLoaded({
          state: 'ready',
          key: `${session}-${crypto.randomUUID()}`,
          messages: state.messages,
          pending: state.pending_approvals,
          owner: state.user_id,
          decisions: state.pause?.decisions ?? [],
          running: state.status === 'running',
        });
      } catch (error) {
        setLoaded({ state: 'failed', error: toApiError(error) });
      }
    },
    [update],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: restores the session once, on mount.
  useEffect(() => {
    writeChatLocation(location);
    if (location.session) void restore(location.session);
  }, []);

  const newChat = (app = location.app) => {
    update({ session: undefined, app });
    setLoaded(fresh());
  };

  const changeMode = (mode: ConnectionMode) => {
    update({ mode });
    // The session is the server's; reload it so the new transport starts from its state.
    if (location.session) void restore(location.session);
    else setLoaded(fresh());
  };

  const onSessionId = useCallback((session: string) => update({ session }), [update]);

  // The list is read when it opens, so a chat that never shows it costs no request.
  const [listOpen, setListOpen] = useState(false);
  const openSession = (session: string) => {
    setListOpen(false);
    if (session === location.session) return;
    update({ session });
    void restore(session);
  };

  return (
    <>
      <ChatToolbar
        apps={catalog.apps}
        app={location.app}
        mode={location.mode}
        appLocked={Boolean(location.session)}
        developer={developer}
        onApp={(app) => newChat(app)}
        onMode={changeMode}
        onNewChat={() => newChat()}
        conversationsOpen={listOpen}
        onConversations={() => setListOpen((open) => !open)}
      />
      {listOpen ? (
        <ConversationList apps={catalog.apps} current={location.session} onOpen={openSession} />
      ) : null}
      {loaded.state === 'loading' ? (
        <p className="hp-loading" role="status">
          Loading conversation…
        </p>
      ) : null}
      {loaded.state === 'failed' ? (
        <div className="chat chat--failed">
          <ErrorNotice
            error={loaded.error}
            onRetry={() => location.session && void restore(location.session)}
          />
          <button type="button" className="hp-button hp-button--ghost" onClick={() => newChat()}>
            Start a new chat instead
          </button>
        </div>
      ) : null}
      {loaded.state === 'ready' ? (
        <ChatSession
          key={`${loaded.key}-${location.mode}`}
          chatId={loaded.key}
          apps={catalog.apps}
          app={location.app}
          mode={location.mode}
          sessionId={location.session}
          initialMessages={loaded.messages}
          initialPending={loaded.pending}
          initialOwner={loaded.owner}
          initialDecisions={loaded.decisions}
          initialRunning={loaded.running}
          onSessionId={onSessionId}
        />
      ) : null}
    </>
  );
}
