import { useCallback, useEffect, useRef, useState } from 'react';
import { type ApiError, toApiError } from '../client/api-error.js';
import type { ApiApprovalView } from '../client/api-types.js';
import { useHoldpoint } from '../holdpoint-provider.js';
import { useInboxFeed } from './inbox-feed.js';

/** One approval as the server last said, and how to read it again. */
export interface ApprovalState {
  approval?: ApiApprovalView;
  loading: boolean;
  /** `APPROVAL_NOT_FOUND` once its session moved on, `FORBIDDEN` for someone it is not for. */
  error?: ApiError;
  reload: () => Promise<void>;
}

/**
 * One approval as of now (`GET /api/approvals/:approvalId`): its call, who may decide it
 * and whether the caller may, and its pause with the decisions recorded. Read again when
 * the caller's inbox changes.
 */
export function useApproval(approvalId: string): ApprovalState {
  const { client } = useHoldpoint();
  const { version } = useInboxFeed();
  const [approval, setApproval] = useState<ApiApprovalView>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError>();
  // Only the latest read may set the state: an older one answering late is dropped.
  const latest = useRef(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is the trigger, not an input.
  const reload = useCallback(async () => {
    const read = ++latest.current;
    try {
      const found = await client.getApproval(approvalId);
      if (read !== latest.current) return;
      setApproval(found);
      setError(undefined);
    } catch (caught) {
      if (read === latest.current) setError(toApiError(caught));
    } finally {
      if (read === latest.current) setLoading(false);
    }
  }, [client, approvalId, version]);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { approval, loading, error, reload };
}
