import { useCallback, useEffect, useState } from 'react';
import { type ApiError, toApiError } from '../api/api-error';
import type { ApiGrant } from '../api/api-types';
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
 * every page shown is read again on reload and when `userId` changes.
 */
export function useGrants(userId: string): Grants {
  const [grants, setGrants] = useState<ApiGrant[]>([]);
  const [pages, setPages] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError>();

  // biome-ignore lint/correctness/useExhaustiveDependencies: the cookies say who; `userId` is the trigger.
  const reload = useCallback(async () => {
    try {
      const read: ApiGrant[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < pages; page++) {
        const next = await listGrants(cursor);
        read.push(...next.grants);
        cursor = next.nextCursor;
        if (!cursor) break;
      }
      setGrants(read);
      setHasMore(cursor !== undefined);
      setError(undefined);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setLoading(false);
    }
  }, [userId, pages]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const replace = useCallback((grant: ApiGrant) => {
    setGrants((listed) => listed.map((g) => (g.grant_id === grant.grant_id ? grant : g)));
  }, []);

  return {
    grants,
    loading,
    error,
    hasMore,
    reload,
    showMore: () => setPages((n) => n + 1),
    replace,
  };
}
