import type { z } from 'zod';
import type { DecisionPolicy } from '../../core/decision-policy.js';
import type { HoldpointError } from '../../core/errors.js';
import { hashArgs } from '../../core/hash.js';
import type { ApprovalRequest, Approvers, Decision } from '../../core/types.js';
import type { ReassignedApproval } from '../../runtime/commands/reassign-approval.js';
import type { ApprovalLookup } from '../../runtime/queries/approval-lookup.js';
import type { PendingApproval } from '../../runtime/queries/pending-approvals.js';
import type { RunView } from '../../runtime/queries/runs.js';
import type { SessionView } from '../../runtime/queries/session-view.js';
import type { SessionSummary } from '../../runtime/queries/sessions.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';
import { approversInForce, editInForce } from '../../session/decision/settlement.js';
import type { Delegation } from '../../store/delegations.js';
import type * as wire from './wire/index.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * An approval request as the API shows it, with the call as it stands: with the votes
 * recorded on its pause (`decisions`), an approved edit in force shows as `args` (and its
 * hash), the model's arguments as `model_args`, and the quorum it asks in `approvers`.
 */
export function presentApproval(
  a: ApprovalRequest,
  decisions: Decision[] = [],
): z.input<typeof wire.approval> {
  const edit = editInForce(decisions, a);
  const args = edit?.editedArgs ?? a.args;
  return {
    approval_id: a.approvalId,
    kind: a.kind,
    tool_name: a.toolName,
    tool_call_id: a.toolCallId,
    args,
    ...(edit ? { model_args: a.args, edited_by: edit.decidedBy } : {}),
    ...(a.decisionPolicy ? { decision_policy: presentDecisionPolicy(a.decisionPolicy) } : {}),
    hint: edit?.editedHint ?? a.hint,
    ...(a.payload === undefined ? {} : { payload: a.payload }),
    ...(a.mayHaveRun ? { may_have_run: true } : {}),
    args_hash: hashArgs(args),
    approvers: presentApprovers(approversInForce(decisions, a)),
    created_at: iso(a.createdAt),
    expires_at: iso(a.expiresAt),
  };
}

/** What a decider may answer beyond yes or no, as the API shows it (snake_case). */
function presentDecisionPolicy(p: DecisionPolicy): z.input<typeof wire.decisionPolicy> {
  return {
    ...(p.editable === undefined ? {} : { editable: p.editable }),
    ...(p.editMayNeedApproval ? { edit_may_need_approval: true } : {}),
    ...(p.respond ? { respond: true } : {}),
    ...(p.respondSchema === undefined ? {} : { respond_schema: p.respondSchema }),
    ...(p.argsSchema === undefined ? {} : { args_schema: p.argsSchema }),
    ...(p.grants === undefined
      ? {}
      : { grants: { scopes: p.grants.scopes, max_hours: p.grants.maxHours } }),
  };
}

/** An approval handed on, with its session. */
export function presentReassigned(a: ReassignedApproval): z.input<typeof wire.reassignedApproval> {
  return { ...presentApproval(a, a.votes), session_id: a.sessionId };
}

/** An out-of-office delegation as the API shows it (`null`: none in force). */
export function presentDelegation(
  d: Delegation | undefined,
): z.input<typeof wire.delegationAnswer> {
  if (!d) return { delegation: null };
  return {
    delegation: {
      user_id: d.userId,
      delegate: d.delegate,
      from: iso(d.from),
      until: iso(d.until),
      ...(d.reason === undefined ? {} : { reason: d.reason }),
      created_at: iso(d.createdAt),
    },
  };
}

/** Who may decide an approval, as the API shows it. */
function presentApprovers(a: Approvers): z.input<typeof wire.approvers> {
  return {
    owner: a.owner,
    roles: a.roles,
    users: a.users,
    quorum: a.quorum,
    requester_may_approve: a.requesterMayApprove,
  };
}

/** A recorded decision as the API shows it. */
export function presentDecision(d: Decision): z.input<typeof wire.decision> {
  return {
    approval_id: d.approvalId,
    approved: d.approved,
    ...(d.reason === undefined ? {} : { reason: d.reason }),
    ...(d.payload === undefined ? {} : { payload: d.payload }),
    decided_by: d.decidedBy,
    ...(d.channel === undefined ? {} : { channel: d.channel }),
    ...(d.onBehalfOf === undefined ? {} : { on_behalf_of: d.onBehalfOf }),
    ...(d.argsHash === undefined ? {} : { args_hash: d.argsHash }),
    ...(d.editedArgs === undefined ? {} : { edited_args: d.editedArgs }),
    ...(d.editedArgsHash === undefined ? {} : { edited_args_hash: d.editedArgsHash }),
    ...(d.editNeedsApproval ? { edit_needs_approval: true } : {}),
    ...(d.response === undefined ? {} : { response: d.response }),
    ...(d.grant === undefined ? {} : { grant_id: d.grant.grantId }),
    at: iso(d.at),
  };
}

/** The answer of start and resume. */
export function presentOutcome(outcome: RunOutcome): z.input<typeof wire.outcome> {
  const base = {
    session_id: outcome.sessionId,
    invocation_id: outcome.invocationId,
    app: outcome.app,
  };
  if (outcome.status === 'completed') {
    return {
      status: outcome.status,
      ...base,
      result: outcome.result,
      artifacts: outcome.artifacts,
    };
  }
  return {
    status: outcome.status,
    ...base,
    pause_id: outcome.pauseId,
    message: outcome.message,
    approvals: outcome.approvals.map((a) => presentApproval(a, outcome.decisions)),
    decisions: outcome.decisions.map(presentDecision),
    expires_at: iso(outcome.expiresAt),
  };
}

/** A run as the API shows it. */
export function presentRun(run: RunView): z.input<typeof wire.run> {
  return {
    invocation_id: run.invocationId,
    session_id: run.sessionId,
    app: run.app,
    user_id: run.userId,
    status: run.status,
    query: run.query,
    ...(run.result === undefined ? {} : { result: run.result }),
    ...(run.error === undefined ? {} : { error: run.error }),
    ...(run.leaseUntil === undefined ? {} : { lease_until: iso(run.leaseUntil) }),
    ...(run.appFingerprint === undefined ? {} : { app_fingerprint: run.appFingerprint }),
    started_at: iso(run.startedAt),
    updated_at: iso(run.updatedAt),
  };
}

/** A session with its current run and pending approvals. */
export function presentSession(view: SessionView): z.input<typeof wire.session> {
  const { meta, run, pause } = view;
  return {
    session_id: meta.sessionId,
    app: meta.app,
    user_id: meta.userId,
    status: meta.status,
    state: view.state,
    created_at: iso(meta.createdAt),
    updated_at: iso(meta.updatedAt),
    run: run && {
      invocation_id: run.invocationId,
      status: run.status,
      query: run.query,
      ...(run.result === undefined ? {} : { result: run.result }),
      ...(run.error === undefined ? {} : { error: run.error }),
      started_at: iso(run.startedAt),
      updated_at: iso(run.updatedAt),
    },
    pause: pause && {
      pause_id: pause.pauseId,
      invocation_id: pause.invocationId,
      status: pause.status,
      expires_at: iso(pause.expiresAt),
      decisions: pause.decisions.map(presentDecision),
    },
    pending_approvals: view.pendingApprovals.map((approval) => ({
      ...presentApproval(approval, pause?.decisions),
      can_decide: view.decidable.includes(approval.approvalId),
    })),
  };
}

/** A session in the list of a user's sessions. */
export function presentSessionSummary(s: SessionSummary): z.input<typeof wire.sessionSummary> {
  return {
    session_id: s.sessionId,
    app: s.app,
    user_id: s.userId,
    ...(s.title === undefined ? {} : { title: s.title }),
    status: s.status,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
    ...(s.run ? { run: { invocation_id: s.run.invocationId, status: s.run.status } } : {}),
    waiting_for_approval: s.waitingForApproval,
  };
}

/** A pending approval in the cross-session list. */
export function presentPendingApproval(a: PendingApproval): z.input<typeof wire.pendingApproval> {
  return {
    ...presentApproval(a, a.votes),
    session_id: a.sessionId,
    invocation_id: a.invocationId,
    app: a.app,
    user_id: a.userId,
    can_decide: a.canDecide,
  };
}

/** One approval as of now, with its pause and the decisions recorded on it. */
export function presentApprovalLookup(found: ApprovalLookup): z.input<typeof wire.approvalView> {
  const { pause, approval } = found;
  return {
    ...presentApproval(approval, pause.decisions),
    can_decide: found.canDecide,
    session_id: found.sessionId,
    invocation_id: pause.invocationId,
    app: found.app,
    pause: {
      pause_id: pause.pauseId,
      status: pause.status,
      expires_at: iso(pause.expiresAt),
      decisions: pause.decisions
        .filter((decision) => decision.approvalId === approval.approvalId)
        .map(presentDecision),
    },
  };
}

/**
 * An error as every transport shows it: `{code, message, …details}`, with approvals
 * in details (`SESSION_PAUSED`'s `pending_approvals`) in the same shape as elsewhere.
 */
export function presentError(error: HoldpointError): z.input<typeof wire.error>['error'] {
  const details = { ...(error.details ?? {}) };
  const pending = details.pending_approvals;
  if (Array.isArray(pending)) {
    details.pending_approvals = (pending as ApprovalRequest[]).map((a) => presentApproval(a));
  }
  return { code: error.code, message: error.message, ...details };
}
