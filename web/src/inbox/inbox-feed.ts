import { useEffect, useSyncExternalStore } from 'react';
import type { ApiInboxEvent } from '../api/api-types';
import { useCurrentUser, useSignIn, useTypedRoles } from '../identity/identity';

/** The signed-in person's inbox as the server last pushed it. */
export interface InboxFeed extends ApiInboxEvent {
  /** How many `inbox` events arrived: what re-reads follow (0: none yet). */
  version: number;
}

const EMPTY: InboxFeed = { pending: 0, more: false, approvals: [], version: 0 };
/**
 * How long after a refused stream (an error status: the browser then gives up on it,
 * where it retries a dropped one by itself) it is opened again.
 */
const REOPEN_MS = 30_000;

let feed: InboxFeed = EMPTY;
let source: EventSource | undefined;
let sourceFor: string | undefined;
let reopen: ReturnType<typeof setTimeout> | undefined;
/** Components holding the stream open, by whom they hold it for. */
const holders = new Map<symbol, string>();
const listeners = new Set<() => void>();

function publish(next: InboxFeed): void {
  feed = next;
  for (const listener of listeners) listener();
}

/**
 * Keeps one `EventSource` on `GET /api/approvals/events` while anyone holds it, for whom
 * the latest holder names (someone else: a new stream, since the server answers for
 * whoever the cookies say). The browser reconnects it by itself after a drop; a refused
 * one is opened again after REOPEN_MS.
 */
function settle(): void {
  const who = [...holders.values()].at(-1);
  if (who === sourceFor && source) return;
  clearTimeout(reopen);
  source?.close();
  source = undefined;
  // Someone else's count is not theirs; the same person's stays until the next push.
  if (who !== sourceFor) publish(EMPTY);
  sourceFor = who;
  if (who === undefined || typeof EventSource === 'undefined') return;
  const opened = new EventSource('/api/approvals/events');
  opened.addEventListener('inbox', (event) => {
    if (opened !== source) return;
    const data = JSON.parse((event as MessageEvent<string>).data) as ApiInboxEvent;
    publish({ ...data, version: feed.version + 1 });
  });
  opened.addEventListener('error', () => {
    if (opened !== source || opened.readyState !== EventSource.CLOSED) return;
    source = undefined;
    reopen = setTimeout(settle, REOPEN_MS);
  });
  source = opened;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The pushed inbox of the signed-in person (nobody signed in: no stream, nothing pending).
 * Every component using it shares one stream; it closes when the last one goes.
 */
export function useInboxFeed(): InboxFeed {
  const signIn = useSignIn();
  const user = useCurrentUser();
  const roles = useTypedRoles();
  // Whom the server takes the browser for: their id, and the roles the dev sign-in sends.
  let who: string | undefined;
  if (signIn.kind === 'signed-in') who = signIn.id;
  if (signIn.kind === 'dev') who = `${user}\n${roles}`;
  useEffect(() => {
    if (who === undefined) return;
    const holder = Symbol(who);
    holders.set(holder, who);
    settle();
    return () => {
      holders.delete(holder);
      settle();
    };
  }, [who]);
  return useSyncExternalStore(subscribe, () => feed);
}
