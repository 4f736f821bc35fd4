import { useCallback, useEffect, useRef, useState } from 'react';
import { type ApiError, toApiError } from './api-error.js';

/** One page of a list, as the API answers it. */
export interface ListPage<T> {
  items: T[];
  nextCursor?: string;
}

/** A list shown a page at a time, and how to read more of it. */
export interface PagedList<T> {
  items: T[];
  loading: boolean;
  error?: ApiError;
  /** Whether the server has more than the pages shown. */
  hasMore: boolean;
  /** Reads every page shown again. */
  reload: () => Promise<void>;
  /** Shows one page more (and reads it again with the others on reload). */
  showMore: () => void;
  /** Puts an item as the server answered it in place of the listed one `same` finds. */
  replace: (item: T, same: (listed: T) => boolean) => void;
}

/**
 * A list the server pages (`readPage(cursor)`), in the server's order: every page shown
 * is read again on `reload` and whenever `key` changes (who is signed in, news the
 * server pushed), never by polling.
 */
export function usePagedList<T>(
  readPage: (cursor?: string) => Promise<ListPage<T>>,
  key: string,
): PagedList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [pages, setPages] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError>();
  // The latest reader, without making every render a new `reload`.
  const reader = useRef(readPage);
  reader.current = readPage;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the trigger, not an input.
  const reload = useCallback(async () => {
    try {
      const read: T[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < pages; page++) {
        const next = await reader.current(cursor);
        read.push(...next.items);
        cursor = next.nextCursor;
        if (!cursor) break;
      }
      setItems(read);
      setHasMore(cursor !== undefined);
      setError(undefined);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setLoading(false);
    }
  }, [key, pages]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const replace = useCallback((item: T, same: (listed: T) => boolean) => {
    setItems((listed) => listed.map((old) => (same(old) ? item : old)));
  }, []);

  return {
    items,
    loading,
    error,
    hasMore,
    reload,
    showMore: () => setPages((n) => n + 1),
    replace,
  };
}
