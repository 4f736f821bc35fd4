import type { ApiError } from '../client/api-error.js';
import type { InboxApproval } from '../client/api-types.js';
import { usePagedList } from '../client/use-paged-list.js';
import { useHoldpoint } from '../holdpoint-provider.js';
import { clientKey } from './client-key.js';
import { useInboxFeed } from './inbox-feed.js';

/** The caller's pending approvals as shown, and the live count of all of them. */
export interface PendingApprovals {
  /** The pages shown, soonest expiry first. */
  approvals: InboxApproval[];
  /** How many wait for the caller in all, as the server last pushed (`more`: even more). */
  pending: number;
  more: boolean;
  loading: boolean;
  error?: ApiError;
  /** Whether the server has more than the pages shown. */
  hasMore: boolean;
  /** Shows one page more. */
  showMore: () => void;
  /** Reads every page shown again. */
  reload: () => Promise<void>;
}

/**
 * The approvals the caller may decide, across sessions, a page at a time: read again
 * whenever the server pushes news of the caller's inbox, never by polling.
 */
export function usePendingApprovals(options: { pageSize?: number } = {}): PendingApprovals {
  const { client, user } = useHoldpoint();
  const feed = useInboxFeed();
  const { pageSize } = options;
  const list = usePagedList(
    async (cursor) => {
      const page = await client.listApprovals({ userId: user, cursor, limit: pageSize });
      return { items: page.approvals, nextCursor: page.nextCursor };
    },
    `${clientKey(client)}\n${user}\n${pageSize}\n${feed.version}`,
  );
  return {
    approvals: list.items,
    pending: feed.pending,
    more: feed.more,
    loading: list.loading,
    error: list.error,
    hasMore: list.hasMore,
    showMore: list.showMore,
    reload: list.reload,
  };
}
