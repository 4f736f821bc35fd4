import type { ApiSessionSummary } from 'holdpoint/react';
import { type ApiError, toApiError } from 'holdpoint/react';
import { useCallback, useEffect, useState } from 'react';
import { listSessions } from '../api/holdpoint-api';

interface Conversations {
  sessions: ApiSessionSummary[];
  loading: boolean;
  error?: ApiError;
  /** Whether the server has more than the pages read. */
  hasMore: boolean;
  /** Reads the first page again. */
  reload: () => void;
  /** Reads the next page and adds it to the list. */
  showMore: () => void;
}

/**
 * The signed-in user's conversations, most recently updated first, read a page at a
 * time when the list is shown (on mount).
 */
export function useConversations(): Conversations {
  const [sessions, setSessions] = useState<ApiSessionSummary[]>([]);
  const [cursor, setCursor] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError>();

  const read = useCallback(async (from?: string) => {
    setLoading(true);
    try {
      const page = await listSessions(from);
      // A session updated between pages can come again: the later page's copy is newer.
      setSessions((prev) => {
        const kept = from ? prev : [];
        const ids = new Set(page.sessions.map((s) => s.session_id));
        return [...kept.filter((s) => !ids.has(s.session_id)), ...page.sessions];
      });
      setCursor(page.nextCursor);
      setError(undefined);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void read();
  }, [read]);

  return {
    sessions,
    loading,
    error,
    hasMore: cursor !== undefined,
    reload: () => void read(),
    showMore: () => void read(cursor),
  };
}
