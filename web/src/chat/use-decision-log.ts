import type { ApiDecision } from 'holdpoint/react';
import { useEffect, useState } from 'react';
import { listDecisions } from '../api/holdpoint-api';

/**
 * The decisions recorded in a session, read from its audit log whenever `version`
 * changes (a decision made, the server's state adopted, a stream ended). Only the
 * session's owner (or an admin) may read the log: anyone else gets none from it.
 */
export function useDecisionLog(sessionId: string | undefined, version: number): ApiDecision[] {
  const [decisions, setDecisions] = useState<ApiDecision[]>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is the trigger, not an input.
  useEffect(() => {
    if (!sessionId) return;
    let stopped = false;
    listDecisions(sessionId).then(
      (read) => {
        if (!stopped) setDecisions(read);
      },
      // Not the owner, or the server unreachable: the decisions known otherwise stay.
      () => undefined,
    );
    return () => {
      stopped = true;
    };
  }, [sessionId, version]);
  return decisions;
}

/**
 * Decisions from every source, by approval id, one per person per approval (the first
 * source that knows it wins: the audit log first).
 */
export function decisionsByApproval(...sources: ApiDecision[][]): Map<string, ApiDecision[]> {
  const byApproval = new Map<string, ApiDecision[]>();
  for (const decision of sources.flat()) {
    const known = byApproval.get(decision.approval_id) ?? [];
    if (known.some((d) => d.decided_by === decision.decided_by)) continue;
    byApproval.set(decision.approval_id, [...known, decision]);
  }
  return byApproval;
}
