import type { DecisionPolicy } from './decision-policy.js';
import type { ArgCondition, GrantScope } from './grants.js';

/** What a person is asked: a yes/no on a tool call, or a value for a long-running tool. */
export type ApprovalKind = 'confirmation' | 'input';

/** One question to a person inside a pause. */
export interface ApprovalRequest {
  approvalId: string;
  kind: ApprovalKind;
  toolName: string;
  /** The original tool call (for a confirmation, the call that waits behind it). */
  toolCallId: string;
  args: Record<string, unknown>;
  hint: string;
  payload?: unknown;
  /**
   * Asked again after a crash: the call was approved and had started when the process
   * driving it died, and nothing recorded whether its effect happened.
   */
  mayHaveRun?: boolean;
  /**
   * Asked again after a crash about a call approved with an edit: the edit in force then,
   * carried over so the call stays as edited (its arguments, their hash, who edited it).
   * Not a vote: it is not among the pause's decisions, and its author decides again.
   */
  carriedEdit?: CarriedEdit;
  /**
   * For an approval a tool awaits inline (`waitForApproval`): which of the call's awaits
   * it answers (0 for the first). Such a call is entered again on resume, not re-run.
   */
  awaitIndex?: number;
  /** Who may decide it, as the tool's policy said when it was asked (default: DEFAULT_APPROVERS). */
  approvers?: Approvers;
  /** Who is told, and through which channels, as the tool's policy said when it was asked. */
  notify?: NotifyRule;
  /** Reminders, escalation and the deadline, as the tool's policy said when it was asked. */
  sla?: SlaPolicy;
  /** How far the SLA went: reminders sent, escalation steps taken, the deadline passed. */
  slaState?: SlaState;
  /** Decision links: `link` (the signed link is enough) or `link+sign-in` (the approver signs in too). */
  links?: LinkPolicy;
  /** Edits, answers in the tool's place and grants its tool allowed when it was asked. */
  decisionPolicy?: DecisionPolicy;
  createdAt: number;
  expiresAt: number;
}

/**
 * Who may decide an approval: the session's owner, anyone with one of `roles`, any of
 * `users`; `quorum` distinct people must approve (one denial decides); the person who
 * started the run may approve their own call only when `requesterMayApprove`.
 */
export interface Approvers {
  owner: boolean;
  roles: string[];
  users: string[];
  quorum: number;
  requesterMayApprove: boolean;
}

/** Whom a tool's approvals are told about, beyond its approvers, and through which channels. */
export interface NotifyRule {
  /** Channel names; absent: every configured channel. */
  channels?: string[];
  /** More audiences to tell (`user:<id>`, `role:<name>`), beside those who may decide it. */
  to?: string[];
}

/**
 * An approval's service level, counted from when it was asked: remind after
 * `remind.afterSeconds`, then every `everySeconds` up to `times` reminders; each
 * escalation step adds deciders at its `afterSeconds`; at `deadline.afterSeconds` the
 * approval is denied, left parked (a line in the log), or escalated to the next step.
 */
export interface SlaPolicy {
  remind?: { afterSeconds: number; everySeconds?: number; times: number };
  escalate?: { afterSeconds: number; to: { roles: string[]; users: string[] } }[];
  deadline?: { afterSeconds: number; action: 'deny' | 'park' | 'escalate' };
}

/** How far an approval's SLA went. */
export interface SlaState {
  reminders: number;
  escalations: number;
  deadlinePassed?: true;
}

export type LinkPolicy = 'link' | 'link+sign-in';

/**
 * A person's answer to one approval request. One per person: an approval with a quorum
 * collects several, and is settled by the first denial or by enough approvals.
 */
export interface Decision {
  approvalId: string;
  approved: boolean;
  reason?: string;
  payload?: unknown;
  decidedBy: string;
  at: number;
  /** The hash of the arguments the person approved or denied (as the audit log writes it). */
  argsHash?: string;
  /** Where it came from, when not the API: `slack`, `link`, a host's channel. */
  channel?: string;
  /** The person an out-of-office delegate decided for (the decider acts as their delegate). */
  onBehalfOf?: string;
  /**
   * The request that recorded it: the same request made again (its first reply was
   * lost) is answered with the run's state instead of ALREADY_DECIDED.
   */
  requestId?: string;
  /**
   * An approval with the call changed (a confirmation): the arguments the person approved
   * instead of the ones they saw (`argsHash`); from then on these are the call's
   * arguments, which later decisions name by `editedArgsHash`.
   */
  editedArgs?: Record<string, unknown>;
  /** hashArgs(editedArgs). */
  editedArgsHash?: string;
  /** The edit needs one more approver (the tool's `editNeedsApproval` said so). */
  editNeedsApproval?: true;
  /**
   * The app's hint for the edited arguments (absent when the tool has no hint of its own):
   * what a later approver reads, so it never describes the call as the model made it.
   */
  editedHint?: string;
  /**
   * An answer in the tool's place (`approved` is true): it becomes the call's result and
   * the tool does not run. For an input approval it is the value (as `payload`).
   */
  response?: unknown;
  /** The grant this approval made (stored in the store's grants once the decision is). */
  grant?: {
    grantId: string;
    scope: GrantScope;
    expiresAt: number;
    match?: Record<string, ArgCondition>;
  };
}

/** An approved edit carried onto an approval asked again (`ApprovalRequest.carriedEdit`). */
export type CarriedEdit = Pick<
  Decision,
  | 'approvalId'
  | 'approved'
  | 'decidedBy'
  | 'at'
  | 'argsHash'
  | 'editedArgs'
  | 'editedArgsHash'
  | 'editNeedsApproval'
>;

export type PauseStatus = 'pending' | 'resuming' | 'resumed' | 'expired' | 'cancelled';

/** A run waiting for people; stored durably until decided, cancelled or expired. */
export interface Pause {
  pauseId: string;
  sessionId: string;
  invocationId: string;
  app: string;
  userId: string;
  status: PauseStatus;
  approvals: ApprovalRequest[];
  decisions: Decision[];
  /**
   * Requests whose decisions an earlier pause of the run recorded and this one no longer
   * counts (approvals asked again after a crash): the same request made again is
   * answered with the run's state, never taken as a decision on the question asked anew.
   */
  supersededRequests?: string[];
  /**
   * The segment that waits in place for this pause's answers (a tool's
   * `waitForApproval`), until when: a decision that settles the pause before then hands
   * the session to that segment instead of starting a new one.
   */
  heldBy?: Lease;
  createdAt: number;
  expiresAt: number;
}

/**
 * `interrupted` is never stored: it is how a `running` run reads once its segment's
 * lease lapsed (the process driving it died), until it is resumed by its invocation id.
 */
export type RunStatus =
  | 'running'
  | 'interrupted'
  | 'paused'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'expired';

/** One user request processed until it ends; its id never changes across pauses. */
export interface RunRecord {
  invocationId: string;
  sessionId: string;
  app: string;
  userId: string;
  query: string;
  status: RunStatus;
  result?: string;
  error?: string;
  /**
   * The running segment stored a checkpoint: the run's stored history goes past the
   * message that started the segment, so a recovery goes on from there without it.
   */
  checkpointed?: boolean;
  /** The shape of the app's agent tree and tools when the run started (`appShape`). */
  appFingerprint?: string;
  appShape?: string[];
  startedAt: number;
  updatedAt: number;
}

export type SessionStatus = 'idle' | 'running' | 'paused';

/**
 * A running segment's hold on its session. Only the segment that took it (`owner`)
 * may end the run; it renews `until` while it works, and another run may take the
 * session over only once `until` has passed.
 */
export interface Lease {
  owner: string;
  until: number;
}

/** Holdpoint's own view of a session, beside ADK's events and state. */
export interface SessionMeta {
  sessionId: string;
  app: string;
  userId: string;
  status: SessionStatus;
  /** The current (latest) run. */
  invocationId?: string;
  /** The latest pause, kept after it ends so late deciders learn how it ended. */
  pauseId?: string;
  /** While running: the segment that holds the session. */
  lease?: Lease;
  /**
   * The hash of the session's last audit line (AUDIT_GENESIS before the first): the
   * next line links to it. Absent on sessions stored before the audit chain.
   */
  auditHead?: string;
  /**
   * What a list of sessions calls it: the start of its first message. Absent on
   * sessions stored before titles, until their next run.
   */
  title?: string;
  createdAt: number;
  updatedAt: number;
}

/** Every action an audit line records: stored lines and the API's export name them alike. */
export const AUDIT_ACTIONS = [
  'started',
  'requested',
  'decided',
  'expired',
  'cancelled',
  'resumed',
  'completed',
  'failed',
  'executed',
  'recovered',
  'reminded',
  'escalated',
  'delegated',
  'undelivered',
  'granted',
  'allowed_by_grant',
  'grant_revoked',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * One append-only line of the audit log. Stored lines are chained: `prevHash` is the
 * hash of the session's line before it (AUDIT_GENESIS for the first) and `hash` covers
 * the line as exported (session/audit/audit-chain.ts). Lines stored before the chain have neither.
 */
export interface AuditEntry {
  at: number;
  action: AuditAction;
  sessionId: string;
  invocationId: string;
  actor: string;
  approvalId?: string;
  toolName?: string;
  argsHash?: string;
  /** A decision's payload, hashed like `argsHash`. */
  payloadHash?: string;
  approved?: boolean;
  reason?: string;
  /**
   * On a `decided` line: the decision named no pause (`{session_id, approved}` without
   * `pause_id`), so it decided whichever pause the session waited on then.
   */
  unnamedPause?: true;
  /** On a `decided` line: where the decision came from, when not the API (`slack`, `link`). */
  channel?: string;
  /** On a `decided` line: the person an out-of-office delegate decided for. */
  onBehalfOf?: string;
  /** On `escalated` and `delegated` lines: who may now decide too (`user:<id>`, `role:<name>`). */
  to?: string[];
  /** On a `decided` line of an edit: the hash of the arguments approved instead (`argsHash`: the ones seen). */
  editedArgsHash?: string;
  /** On a `decided` line of an answer in the tool's place: the answer's hash (the tool did not run). */
  responseHash?: string;
  /** On `granted`, `allowed_by_grant` and `grant_revoked` lines: the grant. */
  grantId?: string;
  /** On a `granted` line: how far it reaches and until when. */
  grantScope?: GrantScope;
  grantUntil?: number;
  prevHash?: string;
  hash?: string;
}
