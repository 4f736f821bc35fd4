import { toApiError } from 'holdpoint/react';
import { useEffect, useSyncExternalStore } from 'react';
import { signOutAt, whoAmI } from '../api/holdpoint-api';

/**
 * The identity seam of the web UI. The server says how this browser signs in
 * (`GET /api/me`, asked once at start):
 * - `dev`: the user is the name they type (and the roles: e.g. `approver`), kept in
 *   localStorage and sent with every request and WebSocket as the `holdpoint_user`
 *   and `holdpoint_roles` cookies (the server believes them from this machine only);
 * - `jwt` with OpenID Connect: the server's sign-in (`/auth/login`) keeps a token in an
 *   HttpOnly cookie the browser sends by itself; the user is whoever it proves;
 * - anything else (API keys, a token the UI cannot get): the UI cannot sign in.
 * Nothing else reads or writes who the user is.
 */
export type SignIn =
  | { kind: 'checking' }
  | { kind: 'dev' }
  | { kind: 'signed-in'; id: string; logoutUrl?: string }
  | { kind: 'signed-out'; loginUrl: string }
  | { kind: 'unsupported'; mode?: string; message: string };

const STORAGE_KEY = 'holdpoint.user';
const ROLES_KEY = 'holdpoint.roles';
/** The cookies the server's dev sign-in reads. */
const COOKIE = 'holdpoint_user';
const ROLES_COOKIE = 'holdpoint_roles';
const DEFAULT_USER = 'guest';
const listeners = new Set<() => void>();
let signIn: SignIn = { kind: 'checking' };
let asked: Promise<void> | undefined;

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

function typedName(): string {
  return storage()?.getItem(STORAGE_KEY)?.trim() || DEFAULT_USER;
}

/** The roles typed with the name (dev), comma-separated. */
function typedRoles(): string {
  return storage()?.getItem(ROLES_KEY)?.trim() ?? '';
}

/** The current user: the principal signed in, else the typed name (dev). */
export function currentUser(): string {
  return signIn.kind === 'signed-in' ? signIn.id : typedName();
}

/**
 * Sends the typed name with every request from now on (fetches and WebSockets alike).
 * It is sent before the server has said its mode: dev is the default, and a server in
 * another mode ignores the cookie.
 */
function sendName(): void {
  if (typeof document === 'undefined') return;
  const cookies = { [COOKIE]: typedName(), [ROLES_COOKIE]: typedRoles() };
  for (const [name, value] of Object.entries(cookies)) {
    // Set at once, before the next request: the Cookie Store API is asynchronous (and
    // missing from some browsers).
    // biome-ignore lint/suspicious/noDocumentCookie: see above
    document.cookie = `${name}=${encodeURIComponent(value)}; path=/; SameSite=Strict`;
  }
}
sendName();

function changed(next?: SignIn): void {
  if (next) signIn = next;
  for (const listener of listeners) listener();
}

/** Changes the typed name and roles (dev; a blank name falls back to the default). */
export function signInAs(name: string, roles = typedRoles()): void {
  const trimmed = name.trim();
  if (trimmed) storage()?.setItem(STORAGE_KEY, trimmed);
  else storage()?.removeItem(STORAGE_KEY);
  const listed = roles
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean)
    .join(',');
  if (listed) storage()?.setItem(ROLES_KEY, listed);
  else storage()?.removeItem(ROLES_KEY);
  sendName();
  changed();
}

/** How the server's answer to `GET /api/me` says this browser signs in. */
async function askServer(): Promise<SignIn> {
  try {
    const me = await whoAmI();
    const id = me.principal?.id;
    // Only an answer naming a signed-in principal outside dev mode takes the name over.
    if (me.auth_mode === 'dev' || typeof id !== 'string') return { kind: 'dev' };
    return { kind: 'signed-in', id, logoutUrl: me.logout_url };
  } catch (error) {
    const failure = toApiError(error);
    // Anything but "who are you?" (the server unreachable): the UI's own default, dev.
    if (failure.code !== 'UNAUTHENTICATED') return { kind: 'dev' };
    const { login_url: loginUrl, auth_mode: mode } = failure.details;
    if (typeof loginUrl === 'string') return { kind: 'signed-out', loginUrl };
    return {
      kind: 'unsupported',
      mode: typeof mode === 'string' ? mode : undefined,
      message: failure.message,
    };
  }
}

/** Asks the server again how this browser is signed in, and tells every view. */
export function loadSignIn(): Promise<void> {
  asked = askServer().then(changed);
  return asked;
}

/** Signs out of the server's sign-in (OpenID Connect), then asks again who this is. */
export async function signOut(): Promise<void> {
  if (signIn.kind !== 'signed-in' || !signIn.logoutUrl) return;
  await signOutAt(signIn.logoutUrl);
  await loadSignIn();
}

/** Where the sign-in starts, coming back to the page shown now. */
export function signInHref(loginUrl: string): string {
  const here = `${window.location.pathname}${window.location.search}`;
  return `${loginUrl}?${new URLSearchParams({ return_to: here })}`;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== STORAGE_KEY && event.key !== ROLES_KEY) return;
    sendName();
    listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** How this browser is signed in, asking the server on first use. */
export function useSignIn(): SignIn {
  const state = useSyncExternalStore(
    subscribe,
    () => signIn,
    () => signIn,
  );
  useEffect(() => {
    if (!asked) void loadSignIn();
  }, []);
  return state;
}

/** The current user, re-rendering when it changes (also a name typed in other tabs). */
export function useCurrentUser(): string {
  return useSyncExternalStore(subscribe, currentUser, () => DEFAULT_USER);
}

/** The typed roles (dev), re-rendering when they change. */
export function useTypedRoles(): string {
  return useSyncExternalStore(subscribe, typedRoles, () => '');
}
