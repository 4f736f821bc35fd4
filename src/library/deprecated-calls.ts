import type { Pause } from '../core/types.js';
import { idText, validate } from '../core/validate.js';
import type { ReassignedApproval } from '../runtime/commands/reassign-approval.js';
import type { AuditPage, AuditQuery } from '../runtime/queries/audit-log.js';
import type { GrantsPage, GrantsQuery, ListedGrant } from '../runtime/queries/grants.js';
import type { PendingPage, PendingQuery } from '../runtime/queries/pending-approvals.js';
import type { RunsPage, RunsQuery, RunView } from '../runtime/queries/runs.js';
import type { HistoryTurn } from '../runtime/queries/session-history.js';
import type { SessionView } from '../runtime/queries/session-view.js';
import type { SessionsPage, SessionsQuery } from '../runtime/queries/sessions.js';
import {
  type DecisionInput,
  type DelegationRequest,
  delegationRequest,
  type ReassignRequest,
  type ResumeRequest,
  type StartRequest,
} from '../runtime/requests.js';
import type { RunEvent, RunEventSink } from '../runtime/run-event.js';
import type { RunOutcome } from '../runtime/run-outcome.js';
import type { Delegation } from '../store/delegations.js';
import type { Unsubscribe } from '../store/run-relay.js';
import type { Actor, LibraryOperations } from './library-operations.js';

/** @deprecated `startRun(request, userId)`: a user's message that starts a run, and who sends it. */
export interface StartRunRequest extends StartRequest {
  userId: Actor;
}

/** @deprecated `resumeRun(request, decidedBy)`: decisions on a session's pause, and who decides. */
export type ResumeRunRequest = ResumeRequest & { decidedBy: Actor };

/** @deprecated `decideApproval(decision, decidedBy)`: a decision on one approval, and who decides. */
export interface DecideRequest extends DecisionInput {
  decidedBy: Actor;
}

/** @deprecated `reassignApproval(request, by)`: an approval handed to `to`, and who hands it. */
export interface ReassignRunRequest extends ReassignRequest {
  by: Actor;
}

/** @deprecated `recoverRun({ invocationId }, actor)` / `cancelRun({ invocationId, reason }, actor)`. */
export interface RecoverRunRequest {
  invocationId: string;
  actor?: Actor;
}

/** @deprecated `cancelPause({ sessionId, reason }, actor)`. */
export interface CancelRequest {
  sessionId: string;
  actor?: Actor;
  reason?: string;
}

/**
 * The library's calls before every operation had its one name (0.x), kept for one minor
 * version: each says what replaces it, and is that call.
 */
export interface DeprecatedCalls {
  /** @deprecated Use `startRun({ query, app?, sessionId? }, userId, onEvent?)`. */
  start(request: StartRunRequest, onEvent?: RunEventSink): Promise<RunOutcome>;
  /** @deprecated Use `resumeRun({ sessionId, … }, decidedBy, onEvent?)`. */
  resume(request: ResumeRunRequest, onEvent?: RunEventSink): Promise<RunOutcome>;
  /** @deprecated Use `decideApproval({ approvalId, … }, decidedBy, onEvent?)`. */
  decide(request: DecideRequest, onEvent?: RunEventSink): Promise<RunOutcome>;
  /** @deprecated Use `cancelPause({ sessionId, reason? }, actor?)`. */
  cancel(request: CancelRequest): Promise<Pause>;
  /** @deprecated Use `createSession`, `getSession`, `getSessionMessages`, `listSessions`. */
  readonly sessions: {
    /** @deprecated Use `createSession({ app? }, userId)`. */
    create(request: { app?: string; userId: Actor }): Promise<string>;
    /** @deprecated Use `getSession(sessionId)`. */
    get(sessionId: string): Promise<SessionView>;
    /** @deprecated Use `getSessionMessages(sessionId)`. */
    history(sessionId: string): Promise<{ view: SessionView; turns: HistoryTurn[] }>;
    /** @deprecated Use `listSessions({ userId, limit?, cursor? })`. */
    list(query: SessionsQuery & { userId: string }): Promise<SessionsPage>;
  };
  /** @deprecated Use `listApprovals` and `reassignApproval`. */
  readonly approvals: {
    /** @deprecated Use `listApprovals(query)`. */
    list(query?: PendingQuery): Promise<PendingPage>;
    /** @deprecated Use `reassignApproval({ approvalId, to, reason? }, by)`. */
    reassign(request: ReassignRunRequest): Promise<ReassignedApproval>;
  };
  /** @deprecated Use `getDelegation`, `setDelegation`, `clearDelegation`. */
  readonly delegations: {
    /** @deprecated Use `getDelegation(userId)`. */
    get(userId: string): Promise<Delegation | undefined>;
    /** @deprecated Use `setDelegation({ userId, delegate, until, … })`. */
    set(userId: string, request: DelegationRequest): Promise<Delegation>;
    /** @deprecated Use `clearDelegation(userId)`. */
    clear(userId: string): Promise<boolean>;
  };
  /** @deprecated Use `listGrants` and `revokeGrant`. */
  readonly grants: {
    /** @deprecated Use `listGrants({ userId, … }, by?)`. */
    list(query: GrantsQuery & { userId: string }, by?: Actor): Promise<GrantsPage>;
    /** @deprecated Use `revokeGrant(grantId, by)`. */
    revoke(grantId: string, by: Actor): Promise<ListedGrant>;
  };
  /** @deprecated Use `getRun`, `listRuns`, `recoverRun`, `cancelRun`. */
  readonly runs: {
    /** @deprecated Use `getRun(invocationId)`. */
    get(invocationId: string): Promise<RunView>;
    /** @deprecated Use `listRuns(query)`. */
    list(query: RunsQuery): Promise<RunsPage>;
    /** @deprecated Use `recoverRun({ invocationId }, actor?, onEvent?)`. */
    resume(request: RecoverRunRequest, onEvent?: RunEventSink): Promise<RunOutcome>;
    /** @deprecated Use `cancelRun({ invocationId, reason? }, actor?)`. */
    cancel(request: RecoverRunRequest & { reason?: string }): Promise<RunView>;
  };
  /** @deprecated Use `readAudit(query)`. */
  audit(query: AuditQuery): Promise<AuditPage>;
  /** @deprecated Use `watchSession(sessionId, undefined, handler)`. */
  watch(sessionId: string, handler: (event: RunEvent) => void): Promise<Unsubscribe>;
}

/** The deprecated calls, each as the call that replaces it. */
export function deprecatedCalls(call: LibraryOperations): DeprecatedCalls {
  return {
    start: ({ userId, ...request }, onEvent) => call.startRun(request, userId, onEvent),
    resume: ({ decidedBy, ...request }, onEvent) =>
      call.resumeRun(request as ResumeRequest, decidedBy, onEvent),
    decide: ({ decidedBy, ...decision }, onEvent) =>
      call.decideApproval(decision, decidedBy, onEvent),
    cancel: ({ actor, ...request }) => call.cancelPause(request, actor),
    sessions: {
      create: ({ userId, ...request }) => call.createSession(request, userId),
      get: (sessionId) => call.getSession(sessionId),
      history: (sessionId) => call.getSessionMessages(sessionId),
      list: async ({ userId, ...query }) =>
        call.listSessions({ ...query, userId: validate(idText, userId) }),
    },
    approvals: {
      list: (query) => call.listApprovals(query ?? {}),
      reassign: ({ by, ...request }) => call.reassignApproval(request, by),
    },
    delegations: {
      get: (userId) => call.getDelegation(userId),
      // The request checked as it is first: one naming a person of its own (`userId`) is
      // refused, never taken for the person this delegation is for.
      set: async (userId, request) =>
        call.setDelegation({ ...validate(delegationRequest, request), userId }),
      clear: (userId) => call.clearDelegation(userId),
    },
    grants: {
      list: (query, by) => call.listGrants(query, by),
      revoke: (grantId, by) => call.revokeGrant(grantId, by),
    },
    runs: {
      get: (invocationId) => call.getRun(invocationId),
      list: (query) => call.listRuns(query),
      resume: ({ actor, ...request }, onEvent) => call.recoverRun(request, actor, onEvent),
      cancel: ({ actor, ...request }) => call.cancelRun(request, actor),
    },
    audit: (query) => call.readAudit(query),
    watch: (sessionId, handler) => call.watchSession(sessionId, undefined, handler),
  };
}
