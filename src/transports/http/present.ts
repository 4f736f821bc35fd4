import type { z } from 'zod';
import { approversOf } from '../../core/approvers.js';
import type { HoldpointError } from '../../core/errors.js';
import { hashArgs } from '../../core/hash.js';
import type { ApprovalRequest, Approvers, Decision } from '../../core/types.js';
import type { ReassignedApproval } from '../../runtime/commands/reassign-approval.js';
import type { PendingApproval } from '../../runtime/queries/pending-approvals.js';
import type { RunView } from '../../runtime/queries/runs.js';
import type { SessionView } from '../../runtime/queries/session-view.js';
import type { SessionSummary } from '../../runtime/queries/sessions.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';
import type { Delegation } from '../../store/delegations.js';
import type * as wire from './wire/index.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** An approval request as the API shows it. */
export function presentApproval(a: ApprovalRequest): z.input<typeof wire.approval> {
  return {
    approval_id: a.approvalId,
    kind: a.kind,
    tool_name: a.toolName,
    tool_call_id: a.toolCallId,
    args: a.args,
    hint: a.hint,
    ...(a.payload === undefined ? {} : { payload: a.payload }),
    ...(a.mayHaveRun ? { may_have_run: true } : {}),
    args_hash: hashArgs(a.args),
    approvers: presentApprovers(approversOf(a)),
    created_at: iso(a.createdAt),
    expires_at: iso(a.expiresAt),
  };
}

/** An approval handed on, with its session. */
export function presentReassigned(a: ReassignedApproval): z.input<typeof wire.reassignedApproval> {
  return { ...presentApproval(a), session_id: a.sessionId };
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
    approvals: outcome.approvals.map(presentApproval),
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
      ...presentApproval(approval),
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
    ...presentApproval(a),
    session_id: a.sessionId,
    invocation_id: a.invocationId,
    app: a.app,
    user_id: a.userId,
    can_decide: a.canDecide,
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
    details.pending_approvals = (pending as ApprovalRequest[]).map(presentApproval);
  }
  return { code: error.code, message: error.message, ...details };
}
