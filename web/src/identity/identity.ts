import { useSyncExternalStore } from 'react';

/**
 * The identity seam of the web UI in the server's `dev` sign-in mode: the user is the
 * name they type, kept in localStorage and sent with every request and WebSocket as the
 * `holdpoint_user` cookie (the server believes it from this machine only). Nothing else
 * reads or writes the name.
 */
const STORAGE_KEY = 'holdpoint.user';
/** The cookie the server's dev sign-in reads. */
const COOKIE = 'holdpoint_user';
const DEFAULT_USER = 'guest';
const listeners = new Set<() => void>();

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

/** The current user's name. */
export function currentUser(): string {
  return storage()?.getItem(STORAGE_KEY)?.trim() || DEFAULT_USER;
}

/** Sends the current name with every request from now on (fetches and WebSockets alike). */
function sendName(): void {
  if (typeof document === 'undefined') return;
  document.cookie = `${COOKIE}=${encodeURIComponent(currentUser())}; path=/; SameSite=Strict`;
}
sendName();

/** Changes the current user's name (blank falls back to the default). */
export function signInAs(name: string): void {
  const trimmed = name.trim();
  if (trimmed) storage()?.setItem(STORAGE_KEY, trimmed);
  else storage()?.removeItem(STORAGE_KEY);
  sendName();
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== STORAGE_KEY) return;
    sendName();
    listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** The current user's name, re-rendering when it changes (also in other tabs). */
export function useCurrentUser(): string {
  return useSyncExternalStore(subscribe, currentUser, () => DEFAULT_USER);
}
