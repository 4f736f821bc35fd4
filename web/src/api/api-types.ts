import type { UIMessage } from 'ai';

/** What Holdpoint puts in the metadata of every assistant message it streams. */
export interface ChatMetadata {
  sessionId: string;
  invocationId: string;
  app: string;
  status?: 'running' | 'paused' | 'completed' | 'failed' | 'cancelled' | 'expired';
  /** ISO time the pause expires, while paused. */
  expiresAt?: string;
}

export type ChatMessage = UIMessage<ChatMetadata>;

/** `GET /api/me`: who is signed in, how, and where they sign out (OpenID Connect sign-in). */
export interface ApiMe {
  principal: { id: string; roles: string[] };
  auth_mode: 'dev' | 'api-keys' | 'jwt' | 'custom';
  logout_url?: string;
}

/** One of the user's sessions, as `GET /api/sessions` lists it. */
export interface ApiSessionSummary {
  session_id: string;
  app: string;
  user_id: string;
  /** The start of its first message; absent on sessions stored before titles. */
  title?: string;
  status: 'idle' | 'running' | 'paused';
  created_at: string;
  updated_at: string;
  run?: { invocation_id: string; status: string };
  waiting_for_approval: boolean;
}

/** An app the server serves, as `GET /api/apps` lists it. */
export interface ApiApp {
  name: string;
  label: string;
  description: string;
  /** Messages to try. */
  examples: string[];
}

export type ApprovalKind = 'confirmation' | 'input';

/** Who may decide an approval (its tool's policy when it was asked). */
export interface ApiApprovers {
  /** The session's owner. */
  owner: boolean;
  /** Anyone with one of these roles. */
  roles: string[];
  /** Any of these people. */
  users: string[];
  /** How many distinct people must approve. */
  quorum: number;
  /** Whether the person who asked may approve their own call. */
  requester_may_approve: boolean;
}

/** An approval request as the REST API shows it. */
export interface ApiApproval {
  approval_id: string;
  kind: ApprovalKind;
  tool_name: string;
  tool_call_id: string;
  args: Record<string, unknown>;
  hint: string;
  payload?: unknown;
  approvers?: ApiApprovers;
  /** Whether the signed-in caller may decide it now (sessions and the inbox say). */
  can_decide?: boolean;
  created_at: string;
  expires_at: string;
}

/** One person's recorded answer to an approval. */
export interface ApiDecision {
  approval_id: string;
  approved: boolean;
  reason?: string;
  decided_by: string;
  at: string;
}

/** A pending approval in the cross-session inbox. */
export interface InboxApproval extends ApiApproval {
  session_id: string;
  invocation_id: string;
  app: string;
  user_id: string;
}

/** `GET /api/sessions/:id/messages`. */
export interface SessionMessages {
  session_id: string;
  app: string;
  /** The session's owner: who asked. */
  user_id: string;
  status: 'idle' | 'running' | 'paused';
  /** The current run's latest pause, with the decisions recorded on it. */
  pause?: { pause_id: string; status: string; decisions: ApiDecision[] };
  messages: ChatMessage[];
  pending_approvals: ApiApproval[];
}

/** The answer of a decision: the run's outcome. */
export interface DecisionOutcome {
  status: 'completed' | 'pending_approval' | 'failed' | string;
  session_id: string;
  invocation_id: string;
  app: string;
  result?: string;
  message?: string;
}

export interface DecisionBody {
  approved: boolean;
  reason?: string;
  payload?: unknown;
}
