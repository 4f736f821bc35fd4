import type { ApprovalRequest, Decision, Pause } from '../core/types.js';
import { undecidedApprovals } from '../session/transitions/index.js';

/** A run that finished. */
export interface CompletedOutcome {
  status: 'completed';
  sessionId: string;
  invocationId: string;
  app: string;
  result: string;
  /** Files the tools made, as data URLs (e.g. generated images). */
  artifacts: string[];
}

/** A run waiting for people; `approvals` are the ones still undecided. */
export interface PendingOutcome {
  status: 'pending_approval';
  sessionId: string;
  invocationId: string;
  /** The pause it waits on: name it when deciding the whole pause (PAUSE_MISMATCH otherwise). */
  pauseId: string;
  app: string;
  message: string;
  approvals: ApprovalRequest[];
  decisions: Decision[];
  expiresAt: number;
}

/** What starting or resuming a run leads to. */
export type RunOutcome = CompletedOutcome | PendingOutcome;

/** The outcome of a run waiting on `pause`. */
export function pendingOutcome(pause: Pause): PendingOutcome {
  const open = undecidedApprovals(pause);
  return {
    status: 'pending_approval',
    sessionId: pause.sessionId,
    invocationId: pause.invocationId,
    pauseId: pause.pauseId,
    app: pause.app,
    message: open.map((a) => a.hint).join('\n'),
    approvals: open,
    decisions: pause.decisions,
    expiresAt: pause.expiresAt,
  };
}
