import type { ConnectionMode } from './chat-settings';

/** What the chat page keeps in the URL, so a reload restores the conversation. */
export interface ChatLocation {
  session?: string;
  app: string;
  mode: ConnectionMode;
}

/** The chat's state from the URL; without `?app=`, the app is `defaultApp`. */
export function readChatLocation(defaultApp: string): ChatLocation {
  const params = new URLSearchParams(window.location.search);
  return {
    session: params.get('session') || undefined,
    app: params.get('app') || defaultApp,
    mode: params.get('mode') === 'ws' ? 'ws' : 'sse',
  };
}

/** Puts the chat's state in the URL, replacing the history entry. */
export function writeChatLocation(location: ChatLocation): void {
  const params = new URLSearchParams();
  if (location.session) params.set('session', location.session);
  params.set('app', location.app);
  if (location.mode === 'ws') params.set('mode', 'ws');
  const url = `${window.location.pathname}?${params}`;
  if (url !== `${window.location.pathname}${window.location.search}`) {
    window.history.replaceState(window.history.state, '', url);
  }
}
