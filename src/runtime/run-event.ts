import type { ApprovalRequest, Decision } from '../core/types.js';
import type { RunOutcome } from './run-outcome.js';

/**
 * What happens during a run, in order, as the runtime tells a transport. A
 * transport renders these (AI SDK chunks, terminal lines); it never sees ADK.
 */
export type RunEvent =
  /** The run holds the session; first event of every segment. */
  | { type: 'run-started'; sessionId: string; invocationId: string; app: string; resumed: boolean }
  /** Decisions recorded on the pause this segment resumes from. */
  | { type: 'decided'; approvals: ApprovalRequest[]; decisions: Decision[] }
  | { type: 'text'; id: string; text: string }
  | {
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      /** The arguments the call ran with (a person's edit, when they made one). */
      args: Record<string, unknown>;
      /** The model's own arguments, when a person's edit replaced them. */
      modelArgs?: Record<string, unknown>;
    }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: Record<string, unknown> }
  | { type: 'tool-error'; toolCallId: string; toolName: string; error: string }
  /** A tool call a person rejected: it never ran. */
  | { type: 'tool-denied'; toolCallId: string; toolName: string }
  /** An approval request, emitted once the pause holding it is stored. */
  | { type: 'approval-requested'; approval: ApprovalRequest }
  /** The segment ended: the run completed or paused (durably). */
  | { type: 'outcome'; outcome: RunOutcome }
  /** The run failed; it is recorded failed. */
  | { type: 'failed'; sessionId: string; invocationId: string; code: string; message: string }
  /** A paused run ended without resuming: cancelled by a person, or expired. */
  | {
      type: 'ended';
      sessionId: string;
      invocationId: string;
      reason: 'cancelled' | 'expired';
      message: string;
    };

/** Receives a run's events as they happen. */
export type RunEventSink = (event: RunEvent) => void;
