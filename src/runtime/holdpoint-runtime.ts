import type { ApprovalPolicy } from '../agents/agent-app.js';
import type { Clock } from '../core/clock.js';
import { isHoldpointError } from '../core/errors.js';
import { hashArgs } from '../core/hash.js';
import { type Principal, principalSchema } from '../core/principal.js';
import type { StoreKind } from '../core/store-kinds.js';
import type { ApprovalRequest } from '../core/types.js';
import { validate } from '../core/validate.js';
import type { Unsubscribe } from '../store/run-relay.js';
import {
  type IdempotentRequest,
  idempotentRequest,
  type RequestAct,
} from './commands/idempotent-request.js';
import { expireDue } from './expiry/expire-due.js';
import { ExpirySweeper } from './expiry/expiry-sweeper.js';
import { applySlaDue, type SlaSweep } from './expiry/sla-due.js';
import { countRequest } from './limits/count-request.js';
import type { RateKind } from './limits/rate-limits.js';
import {
  bindOperations,
  type CheckedOperations,
  checked,
  type RuntimeOperations,
} from './operations.js';
import { delegatorsOf } from './queries/delegators.js';
import { InboxWatches } from './queries/inbox-watch.js';
import { sessionOwner } from './queries/session-view.js';
import { recoverInterrupted } from './recovery/recover-interrupted.js';
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

/** Whether the store answers and takes writes. */
export interface Health {
  status: 'ok' | 'unavailable';
  store: StoreKind;
  code?: string;
  /** Set when the store gave no answer within the health check's bound, or refuses writes. */
  reason?: string;
}

/** How long the health check waits for the store's answer by default. */
export const HEALTH_TIMEOUT_MS = 500;

/**
 * The pause-resume state machine over ADK: starts runs, turns confirmation and
 * long-running tool calls into durable pauses, records decisions and resumes the
 * same run (same invocation id) once every approval of a pause is decided. Each
 * phase lives in its own module — commands (start, resume, cancel), the segment
 * (drive ADK, end in a pause, completion or failure), queries and expiry. Transports
 * call what it does for a caller through `operations` (listed in RUNTIME_OPERATIONS);
 * the class itself holds what is not a caller's: the apps, idempotency and rate
 * counting, the sweeps, inbox watches, health and close. It knows nothing about HTTP.
 */
export class HoldpointRuntime {
  private readonly ctx: RuntimeContext;
  private readonly inboxWatches: InboxWatches;
  /** What the runtime does for a caller (RUNTIME_OPERATIONS), each checking `by` and its input first. */
  readonly operations: RuntimeOperations;
  /**
   * The same operations for an edge whose own schema, made of the runtime's fields, checked
   * the input already (the REST API's decisions, the chat socket's): checking `by` only.
   */
  readonly checkedOperations: CheckedOperations;

  constructor(options: RuntimeOptions) {
    this.ctx = new RuntimeContext(options);
    this.operations = bindOperations(this.ctx);
    this.checkedOperations = bindOperations(this.ctx, true);
    this.inboxWatches = new InboxWatches(
      this.ctx.store.relay,
      (by) => delegatorsOf(this.ctx, by, this.ctx.clock.now()),
      () => this.ctx.clock.now(),
    );
  }

  /**
   * A signed, single-use decision link for `by` to decide `approval` (the page a protocol
   * sends its user to: MCP's URL elicitation), when the server makes links; the link's
   * decision is checked against the tool's policy like any other.
   */
  decisionLinkFor(approval: ApprovalRequest, by: Principal): string | undefined {
    return this.ctx.options.notifications?.links?.decisionLinkTo(
      {
        approvalId: approval.approvalId,
        argsHash: hashArgs(approval.args),
        expiresAt: approval.expiresAt,
      },
      by.id,
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
   * Who owns a session, for the development identity only (see `sessionOwner`): not a
   * caller's operation, since it serves to find out who the caller is.
   */
  sessionOwner(sessionId: string): Promise<string | undefined> {
    return sessionOwner(this.ctx, sessionId);
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

  /** Resumes interrupted runs now (as `recover: 'auto'` does each beat); returns how many. */
  recoverInterrupted(): Promise<number> {
    return recoverInterrupted(this.ctx, new Set());
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

  /** How long a continuous stream waits for `toolName`'s approval in `app`, and what then. */
  approvalPolicy(app: string, toolName: string): Required<ApprovalPolicy> {
    return this.ctx.approvalPolicy(app, toolName);
  }

  /**
   * Whether the store answers and takes writes, within `healthTimeoutMs`
   * (HEALTH_TIMEOUT_MS): a store that does not answer by then is unavailable, so the
   * answer never waits on the store's own (longer) connect timeout. Writes are judged by
   * the last commit (`writable`): no write of its own while commits are stored, one small
   * write per check after a commit was refused, until one is stored again.
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
    const ok = (): Health => ({ status: 'ok', store });
    const unavailable = (error: unknown, writes: boolean): Health => ({
      status: 'unavailable',
      store,
      code: isHoldpointError(error) ? error.code : 'STORE_UNAVAILABLE',
      // The store's own words, as every refused write is answered with them (and free of
      // addresses: the store answered the ping). A failed ping stays unexplained here.
      ...(writes ? { reason: `Writes fail: ${(error as Error).message ?? String(error)}` } : {}),
    });
    const answer = this.ctx.store.ping().then(
      () => this.ctx.store.writable().then(ok, (error: unknown) => unavailable(error, true)),
      (error: unknown) => unavailable(error, false),
    );
    try {
      return await Promise.race([answer, bound]);
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
