import type { ApiError } from '../api/api-error';
import type { InboxApproval } from '../api/api-types';
import { listApprovals } from '../api/holdpoint-api';
import { usePagedList } from '../api/use-paged-list';

interface Inbox {
  approvals: InboxApproval[];
  loading: boolean;
  error?: ApiError;
  /** Whether the server has more than the pages shown. */
  hasMore: boolean;
  reload: () => Promise<void>;
  /** Shows one page more (and re-reads it with the others on news). */
  showMore: () => void;
}

/**
 * The user's pending approvals across sessions, a page at a time (the server's
 * order: earliest expiry first); every page shown is read again whenever `version`
 * changes (the server pushed news of the inbox, see useInboxFeed), never by polling.
 */
export function useInbox(userId: string, version: number): Inbox {
  const list = usePagedList(async (cursor) => {
    const page = await listApprovals(userId, cursor);
    return { items: page.approvals, nextCursor: page.nextCursor };
  }, `${userId}\n${version}`);
  return {
    approvals: list.items,
    loading: list.loading,
    error: list.error,
    hasMore: list.hasMore,
    reload: list.reload,
    showMore: list.showMore,
  };
}
