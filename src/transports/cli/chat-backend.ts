import type { ApprovalRequest, Decision } from '../../core/types.js';
import type { DecisionInput } from '../../runtime/requests.js';

/** An approval as the terminal chat shows it, and whether the person chatting may decide it. */
export interface ChatApproval {
  /**
   * The request as it stands now: its `args` a decider's approved edit, else the model's;
   * its `approvers` with the quorum in force (`approversInForce`).
   */
  request: ApprovalRequest;
  /** The server's `can_decide`: they may decide it now (else it waits for someone else). */
  canDecide: boolean;
  /** When an edit is in force: the arguments the model made, and who changed them. */
  edit?: { modelArgs: Record<string, unknown>; by: string };
}

/** Where a session stands, as the terminal chat needs it. */
export type ChatState =
  | {
      status: 'waiting';
      sessionId: string;
      /** Who owns the session: who asked. */
      owner: string;
      approvals: ChatApproval[];
      /** The votes recorded on the pause so far. */
      decisions: Decision[];
    }
  | {
      status: 'completed';
      sessionId: string;
      result: string;
      artifacts: number;
      /** Read from the session: the votes recorded on its run's latest pause, if it paused. */
      decisions?: Decision[];
    }
  | { status: 'running'; sessionId: string }
  | {
      status: 'ended';
      sessionId: string;
      how: 'failed' | 'cancelled' | 'expired';
      error?: string;
      /** Read from the session: the votes recorded on its run's latest pause, if it paused. */
      decisions?: Decision[];
    }
  | { status: 'idle'; sessionId: string };

/**
 * What the terminal chat talks to: the runtime in this process, or a running server over
 * its REST API (`--url`). Every call acts as the one person chatting.
 */
export interface ChatBackend {
  /** Who chats, as the runtime or server knows them. */
  readonly me: string;
  /** The apps served, the default first. */
  readonly appNames: string[];
  /** A message to `app` (in `sessionId`, or a new session). */
  start(query: string, app: string, sessionId?: string): Promise<ChatState>;
  /** Decisions on the session's pause, by this person. */
  decide(sessionId: string, decisions: DecisionInput[]): Promise<ChatState>;
  /** Cancels the session's pause: nothing pending runs. */
  cancel(sessionId: string, reason: string): Promise<void>;
  /** The session's app and where it stands now. */
  session(sessionId: string): Promise<{ app: string; state: ChatState }>;
}
