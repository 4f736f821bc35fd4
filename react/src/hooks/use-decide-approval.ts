import { useCallback, useState } from 'react';
import { fromApi } from '../approvals/approval-request.js';
import type { InputChoice } from '../approvals/input-answer.js';
import { decisionBody, type RichApproval } from '../approvals/rich-approval.js';
import { type ApiError, toApiError } from '../client/api-error.js';
import type { ApiApproval, DecisionOutcome } from '../client/api-types.js';
import { useHoldpoint } from '../holdpoint-provider.js';

/** How a person answered: the value of an input, a reason, an edit, a response, a grant. */
export interface DecisionChoice {
  choice?: InputChoice;
  reason?: string;
  rich?: RichApproval;
}

/** Deciding an approval from a component: the call, whether one is on its way, its error. */
export interface DecideApproval {
  /**
   * Sends the caller's decision on `approval` (`POST /api/approvals/:approvalId`), bound
   * to the arguments they saw; answers the run's outcome, or throws the `ApiError`.
   */
  decide: (
    approval: ApiApproval,
    approved: boolean,
    choice?: DecisionChoice,
  ) => Promise<DecisionOutcome>;
  busy: boolean;
  /** The last decision's error, until the next one starts. */
  error?: ApiError;
  clearError: () => void;
}

/** Decides approvals as the provider's caller (ApprovalDialog's answers, as they come). */
export function useDecideApproval(): DecideApproval {
  const { client, user } = useHoldpoint();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const decide = useCallback(
    async (approval: ApiApproval, approved: boolean, choice: DecisionChoice = {}) => {
      setBusy(true);
      setError(undefined);
      try {
        return await client.decideApproval(
          approval.approval_id,
          decisionBody(fromApi(approval), approved, choice),
          user,
        );
      } catch (caught) {
        const failure = toApiError(caught);
        setError(failure);
        throw failure;
      } finally {
        setBusy(false);
      }
    },
    [client, user],
  );
  const clearError = useCallback(() => setError(undefined), []);
  return { decide, busy, error, clearError };
}
