import { useCallback, useEffect, useState } from 'react';
import { type ApiError, toApiError } from '../api/api-error';
import type { InboxApproval } from '../api/api-types';
import { listApprovals } from '../api/holdpoint-api';

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
  const [approvals, setApprovals] = useState<InboxApproval[]>([]);
  const [pages, setPages] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError>();

  const reload = useCallback(async () => {
    try {
      const read: InboxApproval[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < pages; page++) {
        const next = await listApprovals(userId, cursor);
        read.push(...next.approvals);
        cursor = next.nextCursor;
        if (!cursor) break;
      }
      setApprovals(read);
      setHasMore(cursor !== undefined);
      setError(undefined);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setLoading(false);
    }
  }, [userId, pages]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is the trigger, not an input.
  useEffect(() => {
    void reload();
  }, [reload, version]);

  return { approvals, loading, error, hasMore, reload, showMore: () => setPages((n) => n + 1) };
}
