import { useCallback, useEffect, useState } from 'react';
import { type ApiError, toApiError } from '../api/api-error';
import type { InboxApproval } from '../api/api-types';
import { listApprovals } from '../api/holdpoint-api';

interface Inbox {
  approvals: InboxApproval[];
  loading: boolean;
  error?: ApiError;
  reload: () => Promise<void>;
}

/** The user's pending approvals across sessions, refreshed every `intervalMs`. */
export function useInbox(userId: string, intervalMs = 5000): Inbox {
  const [approvals, setApprovals] = useState<InboxApproval[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError>();

  const reload = useCallback(async () => {
    try {
      setApprovals(await listApprovals(userId));
      setError(undefined);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setLoading(false);
    }
  }, [userId]);

  useEffect(() => {
    setLoading(true);
    void reload();
    const timer = setInterval(() => void reload(), intervalMs);
    return () => clearInterval(timer);
  }, [reload, intervalMs]);

  return { approvals, loading, error, reload };
}
