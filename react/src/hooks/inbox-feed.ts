import { useSyncExternalStore } from 'react';
import type { ApiInboxEvent } from '../client/api-types.js';
import type { HoldpointClient } from '../client/holdpoint-client.js';
import { useHoldpoint } from '../holdpoint-provider.js';

/** The caller's inbox as the server last pushed it. */
export interface InboxFeed extends ApiInboxEvent {
  /** How many pushes arrived: what re-reads follow (0: none yet). */
  version: number;
}

const EMPTY: InboxFeed = { pending: 0, more: false, approvals: [], version: 0 };

/**
 * One client's inbox stream, open while anyone listens: every component of a page
 * shares it, and it closes when the last one goes.
 */
class InboxFeedStore {
  private feed: InboxFeed = EMPTY;
  private readonly listeners = new Set<() => void>();
  private open?: AbortController;

  constructor(private readonly client: HoldpointClient) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (!this.open) {
      const open = new AbortController();
      this.open = open;
      void this.client.watchInbox((event) => {
        if (this.open === open) this.publish({ ...event, version: this.feed.version + 1 });
      }, open.signal);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      this.open?.abort();
      this.open = undefined;
    };
  };

  readonly snapshot = (): InboxFeed => this.feed;

  /** A new version of what was last pushed: whatever reads on news reads again now. */
  readonly refresh = (): void => this.publish({ ...this.feed, version: this.feed.version + 1 });

  private publish(next: InboxFeed): void {
    this.feed = next;
    for (const listener of this.listeners) listener();
  }
}

const stores = new WeakMap<HoldpointClient, InboxFeedStore>();

/** The store of `client`'s inbox stream, made on first use. */
function storeOf(client: HoldpointClient): InboxFeedStore {
  let store = stores.get(client);
  if (!store) {
    store = new InboxFeedStore(client);
    stores.set(client, store);
  }
  return store;
}

/** No stream: for a feed not wanted yet (nobody signed in). */
const subscribeNone = () => () => {};
const empty = () => EMPTY;

/**
 * The caller's inbox as the server pushes it (`GET /api/approvals/events`): how many
 * approvals wait for them (`pending`, `more` past the server's count), the first few, and
 * a `version` that moves with each push. Live, over one stream per provider; none while
 * `enabled` is false (nobody signed in yet), when it reads as empty.
 */
export function useInboxFeed(enabled = true): InboxFeed {
  const { client } = useHoldpoint();
  const store = storeOf(client);
  return useSyncExternalStore(
    enabled ? store.subscribe : subscribeNone,
    enabled ? store.snapshot : empty,
    enabled ? store.snapshot : empty,
  );
}

/**
 * Reads again, now, everything under the provider that follows the inbox (the pending
 * approvals' pages, an approval): a Refresh button for when the push cannot be trusted.
 */
export function useInboxRefresh(): () => void {
  const { client } = useHoldpoint();
  return storeOf(client).refresh;
}
