import type { ApiError, ApiGrant } from 'holdpoint/react';
import { usePagedList } from 'holdpoint/react';
import { useCallback } from 'react';
import { listGrants } from '../api/holdpoint-api';

interface Grants {
  grants: ApiGrant[];
  loading: boolean;
  error?: ApiError;
  /** Whether the server has more than the pages shown. */
  hasMore: boolean;
  reload: () => Promise<void>;
  /** Shows one page more (and re-reads it with the others on reload). */
  showMore: () => void;
  /** Puts a grant as the server answered it (e.g. revoked) in place of the one listed. */
  replace: (grant: ApiGrant) => void;
}

/**
 * The signed-in user's grants, newest first (the server's order), a page at a time;
 * every page shown is read again on reload and when `userId` changes (the cookies say
 * who, so `userId` is only the trigger).
 */
export function useGrants(userId: string): Grants {
  const list = usePagedList(async (cursor) => {
    const page = await listGrants(cursor);
    return { items: page.grants, nextCursor: page.nextCursor };
  }, userId);
  const { replace } = list;
  return {
    grants: list.items,
    loading: list.loading,
    error: list.error,
    hasMore: list.hasMore,
    reload: list.reload,
    showMore: list.showMore,
    replace: useCallback(
      (grant: ApiGrant) => replace(grant, (listed) => listed.grant_id === grant.grant_id),
      [replace],
    ),
  };
}
