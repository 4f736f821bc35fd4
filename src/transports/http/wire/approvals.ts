import { z } from 'zod';
import { isoTime, page } from './common.js';

/** Who may decide an approval (its tool's policy when it was asked, with the quorum in force). */
export const approvers = z.object({
  /** The session's owner. */
  owner: z.boolean(),
  /** Anyone with one of these roles. */
  roles: z.array(z.string()),
  /** Any of these people. */
  users: z.array(z.string()),
  /**
   * How many distinct people must approve the call as it stands: at least 2 while an
   * edit that needs one more approver is in force.
   */
  quorum: z.number().int().min(1),
  /** Whether the person who asked may approve their own call. */
  requester_may_approve: z.boolean(),
});

/** Grants a tool's policy lets a decider make with an approval. */
export const grantPolicy = z.object({
  scopes: z.array(z.enum(['session', 'user'])),
  max_hours: z.number(),
});

/** What a decider may answer beyond approve and reject (the tool's policy when it was asked). */
export const decisionPolicy = z.object({
  /** `true`: every argument may be changed; a list: only these top-level fields. */
  editable: z.union([z.literal(true), z.array(z.string())]).optional(),
  /** Some edits need one more approver (the tool has a rule for it). */
  edit_may_need_approval: z.literal(true).optional(),
  /** An answer in the tool's place is allowed (`response` on a decision). */
  respond: z.literal(true).optional(),
  /** The JSON Schema such an answer must meet. */
  respond_schema: z.record(z.string(), z.unknown()).optional(),
  /** The tool's arguments as JSON Schema, to build an edit form. */
  args_schema: z.record(z.string(), z.unknown()).optional(),
  grants: grantPolicy.optional(),
});

/** An approval request: a yes/no on a tool call (`confirmation`) or a value (`input`). */
export const approval = z.object({
  approval_id: z.string(),
  kind: z.enum(['confirmation', 'input']),
  tool_name: z.string(),
  tool_call_id: z.string(),
  /** The call's arguments as they stand: the model's, or a decider's edit awaiting more approvals. */
  args: z.record(z.string(), z.unknown()),
  /** The arguments the model made, when a decider's edit changed them (`args` are the edit). */
  model_args: z.record(z.string(), z.unknown()).optional(),
  /** Who made the edit that `args` show. */
  edited_by: z.string().optional(),
  decision_policy: decisionPolicy.optional(),
  hint: z.string(),
  payload: z.unknown().optional(),
  /** Asked again after a crash: the approved call had started, its effect unknown. */
  may_have_run: z.literal(true).optional(),
  /** What a decision names in `args_hash` to bind itself to these arguments. */
  args_hash: z.string(),
  approvers,
  created_at: isoTime,
  expires_at: isoTime,
});

/** An approval as a session's reader sees it: whether they may decide it now. */
export const sessionApproval = approval.extend({ can_decide: z.boolean() });

/** One person's recorded answer to an approval. */
export const decision = z.object({
  approval_id: z.string(),
  approved: z.boolean(),
  reason: z.string().optional(),
  payload: z.unknown().optional(),
  decided_by: z.string(),
  /** Where it was decided, when not the API: `slack`, `link`, a host's channel. */
  channel: z.string().optional(),
  /** The person an out-of-office delegate (`decided_by`) decided for. */
  on_behalf_of: z.string().optional(),
  args_hash: z.string().optional(),
  /** The arguments approved instead of the ones seen (`args_hash`), and their hash. */
  edited_args: z.record(z.string(), z.unknown()).optional(),
  edited_args_hash: z.string().optional(),
  /** The edit needed one more approver. */
  edit_needs_approval: z.literal(true).optional(),
  /** The answer given in the tool's place (the tool did not run). */
  response: z.unknown().optional(),
  /** The grant this approval made. */
  grant_id: z.string().optional(),
  at: isoTime,
});

/** A pending approval in the cross-session inbox (`GET /api/approvals`). */
export const pendingApproval = sessionApproval.extend({
  session_id: z.string(),
  invocation_id: z.string(),
  app: z.string(),
  user_id: z.string(),
});

/**
 * One approval as of now (`GET /api/approvals/:approvalId`): where it waits, whether the
 * caller may decide it, and its pause, with the decisions recorded on this approval.
 */
export const approvalView = sessionApproval.extend({
  session_id: z.string(),
  invocation_id: z.string(),
  app: z.string(),
  pause: z.object({
    pause_id: z.string(),
    /** `pending` while it waits; a decided, expired or cancelled pause says so. */
    status: z.enum(['pending', 'resuming', 'resumed', 'expired', 'cancelled']),
    expires_at: isoTime,
    decisions: z.array(decision),
  }),
});

/** An approval handed to someone (`POST /api/approvals/:approvalId/reassign`), and its session. */
export const reassignedApproval = approval.extend({ session_id: z.string() });

/** A person's out-of-office delegation: who decides their approvals meanwhile, and when. */
export const delegation = z.object({
  user_id: z.string(),
  delegate: z.string(),
  from: isoTime,
  until: isoTime,
  reason: z.string().optional(),
  created_at: isoTime,
});

/** A delegation as read or set; `null` when the person has none in force. */
export const delegationAnswer = z.object({ delegation: delegation.nullable() });

/** Whether a delegation was there to end. */
export const delegationCleared = z.object({ cleared: z.boolean() });

/** A page of the inbox. */
export const approvalsPage = page({ approvals: z.array(pendingApproval) });

/**
 * What `GET /api/approvals/events` sends as its `inbox` event: how many pending approvals
 * the caller may decide now (at most 200: `more` when there are more) and the first few
 * of them, soonest to expire first.
 */
export const inboxEvent = z.object({
  pending: z.number().int().min(0),
  more: z.boolean(),
  approvals: z.array(
    z.object({
      approval_id: z.string(),
      tool_name: z.string(),
      session_id: z.string(),
      app: z.string(),
    }),
  ),
});

/** A remembered permission: later calls of a tool run without a pause while it is in force. */
export const grant = z.object({
  grant_id: z.string(),
  app: z.string(),
  tool_name: z.string(),
  user_id: z.string(),
  scope: z.enum(['session', 'user']),
  session_id: z.string(),
  approval_id: z.string(),
  match: z.record(z.string(), z.unknown()).optional(),
  granted_by: z.string(),
  created_at: isoTime,
  expires_at: isoTime,
  revoked_at: isoTime.optional(),
  revoked_by: z.string().optional(),
  /** Not revoked and not expired. */
  in_force: z.boolean(),
});

/** A page of grants (`GET /api/grants`), newest first. */
export const grantsPage = page({ grants: z.array(grant) });

/** A grant as revoked (`DELETE /api/grants/:grantId`). */
export const grantAnswer = z.object({ grant });

export type Grant = z.output<typeof grant>;
export type GrantsPage = z.output<typeof grantsPage>;
export type DecisionPolicy = z.output<typeof decisionPolicy>;
export type Approvers = z.output<typeof approvers>;
export type Approval = z.output<typeof approval>;
export type SessionApproval = z.output<typeof sessionApproval>;
export type Decision = z.output<typeof decision>;
export type PendingApproval = z.output<typeof pendingApproval>;
export type ApprovalView = z.output<typeof approvalView>;
export type ApprovalsPage = z.output<typeof approvalsPage>;
export type ReassignedApproval = z.output<typeof reassignedApproval>;
export type Delegation = z.output<typeof delegation>;
export type InboxEvent = z.output<typeof inboxEvent>;
