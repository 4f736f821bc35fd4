import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ApprovalPolicy } from '../agents/agent-app.js';
import type { Clock } from '../core/clock.js';
import { isHoldpointError } from '../core/errors.js';
import { type Principal, principalSchema, SYSTEM } from '../core/principal.js';
import type { StoreKind } from '../core/store-kinds.js';
import type { Pause, RunRecord } from '../core/types.js';
import { appName, idText, validate } from '../core/validate.js';
import type { Delegation } from '../store/delegations.js';
import type { DeliveryRecord } from '../store/outbox.js';
import type { Unsubscribe } from '../store/run-relay.js';
import type { StoreStats } from '../store/store.js';
import { cancelInterrupted } from './commands/cancel-interrupted.js';
import { cancelRun } from './commands/cancel-run.js';
import {
  type IdempotentRequest,
  idempotentRequest,
  type RequestAct,
} from './commands/idempotent-request.js';
import { clearDelegation, getDelegation, setDelegation } from './commands/out-of-office.js';
import { type ReassignedApproval, reassignApproval } from './commands/reassign-approval.js';
import { recoverRun } from './commands/recover-run.js';
import { resendDelivery } from './commands/resend-delivery.js';
import { decideApproval, delegatorsOf, resumeRun } from './commands/resume-run.js';
import { revokeGrant } from './commands/revoke-grant.js';
import { startRun } from './commands/start-run.js';
import { expireDue } from './expiry/expire-due.js';
import { ExpirySweeper } from './expiry/expiry-sweeper.js';
import { applySlaDue, type SlaSweep } from './expiry/sla-due.js';
import { countRequest } from './limits/count-request.js';
import type { RateKind } from './limits/rate-limits.js';
import { type ApprovalLookup, approvalLookup } from './queries/approval-lookup.js';
import { type AuditPage, type AuditQuery, auditLog } from './queries/audit-log.js';
import {
  type DeliveriesPage,
  type DeliveriesQuery,
  getDelivery,
  listDeliveries,
} from './queries/deliveries.js';
import {
  type GrantsPage,
  type GrantsQuery,
  type ListedGrant,
  listGrants,
} from './queries/grants.js';
import { type InboxSummary, InboxWatches, inboxSummary } from './queries/inbox-watch.js';
import {
  listPendingApprovals,
  type PendingPage,
  type PendingQuery,
} from './queries/pending-approvals.js';
import { getRun, listRuns, type RunsPage, type RunsQuery, type RunView } from './queries/runs.js';
import { type HistoryTurn, sessionHistory } from './queries/session-history.js';
import { requireSessionReader, type SessionView, sessionView } from './queries/session-view.js';
import { listSessions, type SessionsPage, type SessionsQuery } from './queries/sessions.js';
import { storeStats } from './queries/store-stats.js';
import { recoverInterrupted } from './recovery/recover-interrupted.js';
import type {
  CancelRunRequest,
  DecisionInput,
  DelegationRequest,
  ReassignRequest,
  RecoverRequest,
  ResumeRequest,
  StartRequest,
} from './requests.js';
import type { RunEvent, RunEventSink } from './run-event.js';
import type { RunOutcome } from './run-outcome.js';
import { RuntimeContext, type RuntimeOptions } from './runtime-context.js';

/** An app as a client lists it. */
export interface AppSummary {
  name: string;
  label: string;
  description: string;
  examples: string[];
  /** The fingerprint of its agent tree and tools (see `compatibleWith`). */
  fingerprint: string;
}

/** Whether the store answers. */
export interface Health {
  status: 'ok' | 'unavailable';
  store: StoreKind;
  code?: string;
  /** Set when the store gave no answer within the health check's bound. */
  reason?: string;
}

/** How long the health check waits for the store's answer by default. */
export const HEALTH_TIMEOUT_MS = 500;

const newSession = z.strictObject({ app: appName.optional() });

/** `by` checked; Holdpoint itself (SYSTEM) as it is, so the rules still know it. */
function checked(by: Principal): Principal {
  return by === SYSTEM ? SYSTEM : validate(principalSchema, by);
}

/**
 * The pause-resume state machine over ADK: starts runs, turns confirmation and
 * long-running tool calls into durable pauses, records decisions and resumes the
 * same run (same invocation id) once every approval of a pause is decided. Each
 * phase lives in its own module — commands (start, resume, cancel), the segment
 * (drive ADK, end in a pause, completion or failure), queries and expiry; this class
 * is what transports use. It knows nothing about HTTP.
 */
export class HoldpointRuntime {
  private readonly ctx: RuntimeContext;
  private readonly inboxWatches: InboxWatches;

  constructor(options: RuntimeOptions) {
    this.ctx = new RuntimeContext(options);
    this.inboxWatches = new InboxWatches(
      this.ctx.store.relay,
      (by) => delegatorsOf(this.ctx, by, this.ctx.clock.now()),
      () => this.ctx.clock.now(),
    );
  }

  /** Names of the apps this runtime serves. */
  get appNames(): string[] {
    return this.ctx.appNames;
  }

  /** The apps this runtime serves, as people choose among them; the default first. */
  get apps(): AppSummary[] {
    const { apps, defaultApp } = this.ctx.options;
    return [...apps.values()]
      .map((app) => ({
        name: app.name,
        label: app.label,
        description: app.description,
        examples: app.examples,
        fingerprint: this.ctx.shapeOf(app).fingerprint,
      }))
      .sort((a, b) => Number(b.name === defaultApp) - Number(a.name === defaultApp));
  }

  /**
   * Starts a run for `by`'s message, on a new session (`by` owns it) unless `sessionId`
   * is given (its owner's or an admin's).
   */
  start(request: StartRequest, by: Principal, sink?: RunEventSink): Promise<RunOutcome> {
    return startRun(this.ctx, request, checked(by), sink);
  }

  /**
   * Records `by`'s decisions on the session's pause. Once every approval is decided,
   * the one caller that completed it resumes the run; everyone else gets 409.
   */
  resume(request: ResumeRequest, by: Principal, sink?: RunEventSink): Promise<RunOutcome> {
    return resumeRun(this.ctx, request, checked(by), sink);
  }

  /**
   * Records one decision by approval id alone and, when it completes the pause, resumes.
   * `requestId` names the request across its retries (Decision.requestId).
   */
  decideApproval(
    decision: DecisionInput,
    by: Principal,
    sink?: RunEventSink,
    requestId?: string,
  ): Promise<RunOutcome> {
    return decideApproval(this.ctx, decision, checked(by), sink, requestId);
  }

  /**
   * Hands a pending approval to the user `to`, who may then decide it (its policy still
   * holds): `by` must be among those who may decide it. Audited `delegated`.
   */
  reassignApproval(request: ReassignRequest, by: Principal): Promise<ReassignedApproval> {
    return reassignApproval(this.ctx, request, checked(by));
  }

  /**
   * Leaves `userId`'s approvals to a delegate while they are out of office (replacing an
   * earlier delegation): for `userId` or an admin.
   */
  setDelegation(userId: string, request: DelegationRequest, by: Principal): Promise<Delegation> {
    return setDelegation(this.ctx, userId, request, checked(by));
  }

  /** `userId`'s out-of-office delegation, unless it ended: for `userId` or an admin. */
  getDelegation(userId: string, by: Principal): Promise<Delegation | undefined> {
    return getDelegation(this.ctx, userId, checked(by));
  }

  /** Ends `userId`'s out-of-office delegation; whether there was one. For `userId` or an admin. */
  clearDelegation(userId: string, by: Principal): Promise<boolean> {
    return clearDelegation(this.ctx, userId, checked(by));
  }

  /**
   * A user's grants (default: `by`'s own), newest first, in force or not: their own, or
   * any user's for an admin.
   */
  listGrants(query: GrantsQuery, by: Principal): Promise<GrantsPage> {
    return listGrants(this.ctx, query, checked(by));
  }

  /**
   * Revokes a grant now (audited `grant_revoked` in the session it was made in): for its
   * user, its granter or an admin; GRANT_NOT_FOUND for anyone else.
   */
  revokeGrant(grantId: string, by: Principal): Promise<ListedGrant> {
    return revokeGrant(this.ctx, grantId, checked(by));
  }

  /** Cancels a paused run: nothing pending runs, the run is recorded cancelled. */
  cancel(sessionId: string, by: Principal, reason?: string): Promise<Pause> {
    return cancelRun(this.ctx, sessionId, checked(by), reason);
  }

  /**
   * Creates an empty session for `app`, owned by `by`, e.g. so a waiter can watch it
   * before the first run.
   */
  async createSession(request: { app?: string }, by: Principal): Promise<string> {
    const { app } = validate(newSession, request);
    const userId = checked(by).id;
    const name = this.ctx.requireApp(app ?? this.ctx.options.defaultApp).name;
    const sessionId = randomUUID();
    await this.ctx.store.createSession({
      sessionId,
      app: name,
      userId,
      createdAt: this.ctx.clock.now(),
    });
    return sessionId;
  }

  /**
   * Who owns a session; undefined when there is no such session. For the development
   * identity only (a request that names nobody but a session acts as its owner):
   * nothing else learns an owner without reading the session as someone allowed to.
   */
  async sessionOwner(sessionId: string): Promise<string | undefined> {
    const snapshot = await this.ctx.store.getSnapshot(validate(idText, sessionId));
    return snapshot?.meta.userId;
  }

  /** The session's meta, state, current run and pending approvals: for its owner or an admin. */
  async getSession(sessionId: string, by: Principal): Promise<SessionView> {
    return (await sessionView(this.ctx, sessionId, checked(by))).view;
  }

  /**
   * One approval by its id, with its pause, as of now (a decision link's page): for
   * those who may read its session; undefined when it is gone or its session moved on.
   */
  approval(approvalId: string, by: Principal): Promise<ApprovalLookup | undefined> {
    return approvalLookup(this.ctx, approvalId, checked(by));
  }

  /** The session's conversation as turns of run events, for clients that reload. */
  async history(
    sessionId: string,
    by: Principal,
  ): Promise<{ view: SessionView; turns: HistoryTurn[] }> {
    const { view, session } = await sessionView(this.ctx, sessionId, checked(by));
    const app = this.ctx.options.apps.get(view.meta.app);
    return { view, turns: sessionHistory(session.events, app?.hints ?? {}, view.pendingApprovals) };
  }

  /**
   * `by`'s own sessions (an admin's: anyone's, naming `userId`), most recently updated
   * first, a page at a time.
   */
  listSessions(query: SessionsQuery, by: Principal): Promise<SessionsPage> {
    return listSessions(this.ctx, query, checked(by));
  }

  /** Pending approvals `by` may decide across sessions, a page at a time. */
  listPendingApprovals(query: PendingQuery, by: Principal): Promise<PendingPage> {
    return listPendingApprovals(this.ctx, query, checked(by));
  }

  /** How many pending approvals `by` may decide now (capped), and the first few of them. */
  inboxSummary(by: Principal): Promise<InboxSummary> {
    return inboxSummary(this.ctx, checked(by));
  }

  /**
   * Calls `onNews` whenever a stored commit may have changed `by`'s inbox, until the
   * returned function is called; subscribed when it resolves, so read the inbox after.
   * `onEnd` when the runtime stops (`endInboxWatches`, `close`): end what the watch serves.
   * News for someone away who left their approvals to `by` is `by`'s too.
   * TOO_MANY_INBOX_STREAMS when `by` holds as many watches as they may in this process.
   */
  watchInbox(by: Principal, onNews: () => void, onEnd: () => void): Promise<Unsubscribe> {
    return this.inboxWatches.watch(checked(by), onNews, onEnd);
  }

  /**
   * Ends every inbox watch (their streams end; browsers reconnect elsewhere), so a server
   * closing is not held open by them.
   */
  endInboxWatches(): void {
    this.inboxWatches.endAll();
  }

  /** The runtime's clock, for transports that keep time with it (heartbeats). */
  get clock(): Clock {
    return this.ctx.clock;
  }

  /** The audit log of a session, oldest first, a page at a time: for its owner or an admin. */
  audit(query: AuditQuery, by: Principal): Promise<AuditPage> {
    return auditLog(this.ctx, query, checked(by));
  }

  /** Expires every pause past its time (recording it in the audit log); returns how many. */
  expireDue(): Promise<number> {
    return expireDue(this.ctx);
  }

  /**
   * Takes every approval SLA step due now (reminders, escalations, deadlines), as the
   * sweeper does each beat; a run a deadline denial resumed goes on in the background.
   */
  applySlaDue(): Promise<SlaSweep> {
    return applySlaDue(this.ctx);
  }

  /**
   * Resumes a run whose process stopped while it worked (`interrupted`), by its
   * invocation id, from what was stored last.
   */
  recover(request: RecoverRequest, by: Principal, sink?: RunEventSink): Promise<RunOutcome> {
    return recoverRun(this.ctx, request, checked(by), sink);
  }

  /**
   * Runs `act` once per idempotency key (see idempotentRequest): a retry with the same
   * key gets the first answer, or, when that left the outcome unknown, acts again under
   * the same request id and is answered with the run's state.
   */
  idempotent(request: IdempotentRequest, act: RequestAct): Promise<RunOutcome> {
    return idempotentRequest(this.ctx, request, act);
  }

  /**
   * Counts a request by `by` against the per-minute limit of each of `kinds` (a request
   * that starts a run is both `requests` and `runs`), shared by every instance on the
   * store, in one store call; RATE_LIMITED (with `retry_after_seconds`) past a limit. A
   * store that cannot count lets the request through.
   */
  countRequest(by: Principal, ...kinds: RateKind[]): Promise<void> {
    return countRequest(this.ctx, validate(principalSchema, by), kinds);
  }

  /** Gives up an interrupted run: recorded cancelled, its session free again. */
  cancelInterrupted(request: CancelRunRequest, by: Principal): Promise<RunRecord> {
    return cancelInterrupted(this.ctx, request, checked(by));
  }

  /** A run by its invocation id, `interrupted` when its process stopped. */
  getRun(invocationId: string, by: Principal): Promise<RunView> {
    return getRun(this.ctx, invocationId, checked(by));
  }

  /** Interrupted runs, a page at a time: for admins. */
  listRuns(query: RunsQuery, by: Principal): Promise<RunsPage> {
    return listRuns(this.ctx, query, checked(by));
  }

  /** Resumes interrupted runs now (as `recover: 'auto'` does each beat); returns how many. */
  recoverInterrupted(): Promise<number> {
    return recoverInterrupted(this.ctx, new Set());
  }

  /** Notifications (the outbox's deliveries), newest first, all or by status: for admins. */
  listDeliveries(query: DeliveriesQuery, by: Principal): Promise<DeliveriesPage> {
    return listDeliveries(this.ctx, query, checked(by));
  }

  /** One notification by its delivery id: for admins. */
  getDelivery(deliveryId: string, by: Principal): Promise<DeliveryRecord> {
    return getDelivery(this.ctx, deliveryId, checked(by));
  }

  /** Sends a notification again (due now, attempts from zero, same id): for admins. */
  resendDelivery(deliveryId: string, by: Principal): Promise<DeliveryRecord> {
    return resendDelivery(this.ctx, deliveryId, checked(by));
  }

  /** How much the store holds: sessions, paused, running, deliveries, bytes. For admins. */
  storeStats(by: Principal): Promise<StoreStats> {
    return storeStats(this.ctx, checked(by));
  }

  /**
   * Sends the notifications due now (as each sweep does, and each commit that wrote some
   * nudges); resolves with how many attempts it made (0 without notifications).
   */
  dispatchNotifications(): Promise<number> {
    return this.ctx.dispatcher?.dispatch() ?? Promise.resolve(0);
  }

  /**
   * Starts recording expiries every `intervalSeconds` and, with `recover`, resuming
   * interrupted runs; returns what stops it.
   */
  startSweeper(intervalSeconds: number, recover = false): () => void {
    const sweeper = new ExpirySweeper(this.ctx, intervalSeconds * 1000, recover);
    sweeper.start();
    return () => sweeper.stop();
  }

  /**
   * Receives what happens to a session's runs from now on, whichever instance runs
   * them: for its owner, an admin, or someone its pause asks to decide.
   */
  async watch(
    sessionId: string,
    by: Principal,
    handler: (event: RunEvent) => void,
  ): Promise<Unsubscribe> {
    const snapshot = await this.ctx.requireSnapshot(sessionId);
    requireSessionReader(snapshot, checked(by), 'watch this session');
    return this.ctx.store.relay.subscribe(sessionId, (message) => handler(message as RunEvent));
  }

  /** How long a continuous stream waits for `toolName`'s approval in `app`, and what then. */
  approvalPolicy(app: string, toolName: string): Required<ApprovalPolicy> {
    return this.ctx.approvalPolicy(app, toolName);
  }

  /**
   * Whether the store answers, within `healthTimeoutMs` (HEALTH_TIMEOUT_MS): a store
   * that does not answer by then is unavailable, so the answer never waits on the
   * store's own (longer) connect timeout.
   */
  async health(): Promise<Health> {
    const store = this.ctx.store.kind;
    const boundMs = this.ctx.options.healthTimeoutMs ?? HEALTH_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<Health>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            status: 'unavailable',
            store,
            code: 'STORE_UNAVAILABLE',
            reason: `The store did not answer within ${boundMs} ms.`,
          }),
        boundMs,
      );
    });
    const ping = this.ctx.store.ping().then(
      (): Health => ({ status: 'ok', store }),
      (error: unknown): Health => ({
        status: 'unavailable',
        store,
        code: isHoldpointError(error) ? error.code : 'STORE_UNAVAILABLE',
      }),
    );
    try {
      return await Promise.race([ping, bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Ends the inbox watches, releases the pauses this process holds in place (a decision
   * then resumes them on any instance), stops sending notifications, then releases the
   * store.
   */
  async close(): Promise<void> {
    this.endInboxWatches();
    await Promise.all([...this.ctx.holds].map((release) => release()));
    await this.ctx.dispatcher?.stop();
    await this.ctx.store.close();
  }
}
