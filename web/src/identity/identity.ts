import { useSyncExternalStore } from 'react';

/**
 * The identity seam of the web UI. Until authentication lands, the user is the name they
 * type, kept in localStorage and sent as `userId` / `user_id`. Replace this module to plug
 * in verified identities; nothing else reads or writes the name.
 */
const STORAGE_KEY = 'holdpoint.user';
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

/** Changes the current user's name (blank falls back to the default). */
export function signInAs(name: string): void {
  const trimmed = name.trim();
  if (trimmed) storage()?.setItem(STORAGE_KEY, trimmed);
  else storage()?.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === STORAGE_KEY) listener();
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
