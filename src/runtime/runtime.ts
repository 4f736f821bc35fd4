import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import { Runner, type Session } from '@google/adk';
import type { Content, Part } from '@google/genai';
import type { Logger } from 'pino';
import type { AgentApp, ApprovalPolicy } from '../agents/agent-app.js';
import { approvalAudit } from '../core/audit.js';
import { resumedEffectKeys } from '../core/effect-ledger.js';
import { HoldpointError } from '../core/errors.js';
import type {
  ApprovalRequest,
  AuditEntry,
  Decision,
  Pause,
  RunRecord,
  SessionMeta,
} from '../core/types.js';
import type { DecideResult, DecisionBatch, EarlyClaim, HoldpointStore } from '../store/store.js';
import { closingEvent } from './dangling-calls.js';
import { DurabilityGate } from './durability-gate.js';
import type { RunEvent, RunEventSink } from './run-event.js';
import type { PendingOutcome, RunOutcome } from './run-outcome.js';
import { CONFIRMATION_CALL, SegmentCollector } from './segment-collector.js';
import { type HistoryTurn, sessionHistory } from './session-history.js';

export interface RuntimeOptions {
  store: HoldpointStore;
  apps: Map<string, AgentApp>;
  defaultApp: string;
  /** How long a pause waits for people before it expires. */
  pauseTtlSeconds: number;
  /** How long an ended pause is kept, so late callers learn it expired instead of "not found". */
  retentionSeconds: number;
  /** How long a running process may hold a session before another may take it over. */
  runLeaseSeconds?: number;
  logger: Logger;
  /** Continuous streams: how long to wait for an approval, unless the app's tool says otherwise. */
  approvalTimeoutSeconds?: number;
  /** Continuous streams: what a timed-out approval becomes, unless the tool says otherwise. */
  approvalTimeoutPolicy?: 'deny' | 'park';
  now?: () => number;
}

export interface StartRequest {
  query: string;
  userId: string;
  app?: string;
  sessionId?: string;
}

/** One person's answer, as a transport hands it over. */
export interface DecisionInput {
  approvalId: string;
  approved: boolean;
  reason?: string;
  payload?: unknown;
}

export interface ResumeRequest {
  sessionId: string;
  decidedBy: string;
  /** Decides every undecided approval of the pause the same way. */
  approved?: boolean;
  reason?: string;
  decisions?: DecisionInput[];
}

/** A pending approval with the run it belongs to. */
export interface PendingApproval extends ApprovalRequest {
  sessionId: string;
  invocationId: string;
  app: string;
  userId: string;
}

/** What a session looks like from outside. */
export interface SessionView {
  meta: SessionMeta;
  state: Record<string, unknown>;
  run?: RunRecord;
  pause?: Pause;
  pendingApprovals: ApprovalRequest[];
}

/**
 * The pause-resume state machine: starts runs on ADK, turns confirmation and
 * long-running tool calls into durable pauses, records decisions and resumes the
 * same run (same invocation id) once every approval of a pause is decided.
 * Knows nothing about HTTP.
 */
export class HoldpointRuntime {
  private readonly runners = new Map<string, Runner>();
  private readonly gate = new DurabilityGate();
  private readonly now: () => number;

  constructor(private readonly options: RuntimeOptions) {
    this.now = options.now ?? Date.now;
  }

  get store(): HoldpointStore {
    return this.options.store;
  }

  /** Names of the apps this runtime serves. */
  get appNames(): string[] {
    return [...this.options.apps.keys()];
  }

  /** Starts a run for a user's message, on a new session unless `sessionId` is given. */
  async start(request: StartRequest, sink?: RunEventSink): Promise<RunOutcome> {
    const { store } = this.options;
    const meta = request.sessionId ? await this.requireMeta(request.sessionId) : undefined;
    if (meta && request.app && request.app !== meta.app) {
      throw new HoldpointError(
        'APP_MISMATCH',
        `Session ${meta.sessionId} belongs to app ${meta.app}, not ${request.app}.`,
      );
    }
    const app = this.requireApp(meta?.app ?? request.app ?? this.options.defaultApp);
    const now = this.now();
    const run: RunRecord = {
      invocationId: `inv-${randomUUID()}`,
      sessionId: meta?.sessionId ?? randomUUID(),
      app: app.name,
      userId: request.userId,
      query: request.query,
      status: 'running',
      startedAt: now,
      updatedAt: now,
    };
    const leaseUntil = now + this.leaseMs;
    let session: Session;
    let stored: Promise<void> | undefined;
    if (meta) {
      session = await this.loadSession(meta);
      await store.beginRun(run, leaseUntil);
      const closing = closingEvent(
        session.events,
        run.invocationId,
        'The approval request ended without a decision; the tool did not run.',
      );
      if (closing) await store.sessions.appendEvent({ session, event: closing });
    } else {
      ({ session, stored } = await store.createRunningSession(run, leaseUntil));
    }
    return this.drive(
      app,
      session,
      run.invocationId,
      { role: 'user', parts: [{ text: request.query }] },
      { sink, stored },
    );
  }

  /**
   * Records decisions on the session's pause. Once every approval is decided, the
   * one caller that completed it resumes the run; everyone else gets 409.
   */
  async resume(request: ResumeRequest, sink?: RunEventSink): Promise<RunOutcome> {
    const now = this.now();
    const batch = this.toBatch(request, now);
    const { sessionId, decidedBy } = request;
    const leaseUntil = now + this.leaseMs;
    try {
      const early = await this.store.decideEarly(sessionId, batch, now, leaseUntil);
      return await this.resumeDecided(early, decidedBy, sink);
    } catch (error) {
      // An early claim that lost its race left nothing behind: decide again, afresh.
      if (!(error instanceof ClaimLost)) throw error;
    }
    const decided = await this.store.decide(sessionId, batch, now, leaseUntil);
    return this.resumeDecided(decided, decidedBy, sink);
  }

  private async resumeDecided(
    { outcome, pause, early }: DecideResult,
    decidedBy: string,
    sink?: RunEventSink,
  ): Promise<RunOutcome> {
    const recorded = () =>
      this.log(pause.sessionId, pause.invocationId).info(
        { decided_by: decidedBy, decisions: pause.decisions.length, outcome },
        'decisions recorded',
      );
    if (outcome === 'pending') {
      recorded();
      const pending = pendingOutcome(pause);
      const emit = this.emitter(pause.sessionId, sink);
      emit({ type: 'decided', approvals: pause.approvals, decisions: pause.decisions });
      emit({ type: 'outcome', outcome: pending });
      return pending;
    }
    // An early claim is recorded once it is stored.
    if (!early) recorded();
    else early.stored.then((held) => held && recorded()).catch(() => undefined);
    let app: AgentApp;
    try {
      app = this.requireApp(pause.app);
    } catch (error) {
      // No run starts: an early claim still has to be settled.
      if (early) await this.confirmClaim(early);
      throw error;
    }
    const releases = this.prepareEffects(pause);
    try {
      return await this.drive(
        app,
        { id: pause.sessionId, userId: pause.userId },
        pause.invocationId,
        { role: 'user', parts: pause.approvals.map((a) => answerPart(a, pause.decisions)) },
        { sink, resumedFrom: pause, claim: early },
      );
    } finally {
      for (const release of releases) release();
    }
  }

  /**
   * The tools of approved confirmations run first thing in the resumed run: claim
   * their effects now (a store may have sent the claims with the decision already),
   * so the claims travel while ADK gets to the tools.
   */
  private prepareEffects(pause: Pause): (() => void)[] {
    const { effects } = this.store;
    const prepare = effects.prepare?.bind(effects);
    return prepare ? resumedEffectKeys(pause).map(prepare) : [];
  }

  /** Cancels a paused run: nothing pending runs, the run is recorded cancelled. */
  async cancel(sessionId: string, actor: string, reason?: string): Promise<Pause> {
    const pause = await this.store.cancel(sessionId, actor, reason, this.now());
    this.log(sessionId, pause.invocationId).info({ reason }, 'run cancelled');
    this.store.relay.publish(sessionId, {
      type: 'ended',
      sessionId,
      invocationId: pause.invocationId,
      reason: 'cancelled',
      message: reason ? `Cancelled by ${actor}: ${reason}` : `Cancelled by ${actor}.`,
    } satisfies RunEvent);
    return pause;
  }

  /** The session's meta, state, current run and pending approvals. */
  async getSession(sessionId: string): Promise<SessionView> {
    return (await this.readSession(sessionId)).view;
  }

  private async readSession(sessionId: string): Promise<{ view: SessionView; session: Session }> {
    await this.expireIfDue(sessionId);
    const meta = await this.requireMeta(sessionId);
    const session = await this.loadSession(meta);
    const [run, pause] = await Promise.all([
      meta.invocationId ? this.store.getRun(sessionId, meta.invocationId) : undefined,
      meta.pauseId ? this.store.getPause(sessionId, meta.pauseId) : undefined,
    ]);
    const view = { meta, state: session.state, run, pause, pendingApprovals: undecided(pause) };
    return { view, session };
  }

  /** The session's conversation as turns of run events, for clients that reload. */
  async history(sessionId: string): Promise<{ view: SessionView; turns: HistoryTurn[] }> {
    const { view, session } = await this.readSession(sessionId);
    const app = this.options.apps.get(view.meta.app);
    return { view, turns: sessionHistory(session.events, app?.hints ?? {}, view.pendingApprovals) };
  }

  /** Pending approvals across sessions, for one user (the session's owner) or all. */
  async listPendingApprovals(userId?: string): Promise<PendingApproval[]> {
    await this.expireDue();
    const pending: PendingApproval[] = [];
    for (const sessionId of await this.store.listPausedSessions()) {
      const meta = await this.store.getMeta(sessionId);
      if (!meta?.pauseId || (userId !== undefined && meta.userId !== userId)) continue;
      const pause = await this.store.getPause(sessionId, meta.pauseId);
      for (const approval of undecided(pause)) {
        pending.push({
          ...approval,
          sessionId,
          invocationId: meta.invocationId ?? '',
          app: meta.app,
          userId: meta.userId,
        });
      }
    }
    return pending;
  }

  /** The audit log of a session, oldest first. */
  async audit(sessionId: string): Promise<AuditEntry[]> {
    await this.expireIfDue(sessionId);
    await this.requireMeta(sessionId);
    return this.store.listAudit(sessionId);
  }

  /** Expires every pause past its time (recording it in the audit log); returns how many. */
  async expireDue(): Promise<number> {
    let expired = 0;
    for (const sessionId of await this.store.listPausedSessions()) {
      if (await this.expireIfDue(sessionId)) expired += 1;
    }
    return expired;
  }

  private async expireIfDue(sessionId: string): Promise<boolean> {
    const meta = await this.store.getMeta(sessionId);
    if (meta?.status !== 'paused') return false;
    const pause = await this.store.expire(sessionId, this.now());
    if (!pause) return false;
    this.log(sessionId, pause.invocationId).info('pause expired');
    this.store.relay.publish(sessionId, {
      type: 'ended',
      sessionId,
      invocationId: pause.invocationId,
      reason: 'expired',
      message: 'The approval request expired.',
    } satisfies RunEvent);
    return true;
  }

  /** How long a continuous stream waits for `toolName`'s approval in `app`, and what then. */
  approvalPolicy(app: string, toolName: string): Required<ApprovalPolicy> {
    const policy = this.options.apps.get(app)?.approvalPolicies?.[toolName];
    return {
      timeoutSeconds: policy?.timeoutSeconds ?? this.options.approvalTimeoutSeconds ?? 30,
      onTimeout: policy?.onTimeout ?? this.options.approvalTimeoutPolicy ?? 'park',
    };
  }

  /** Creates an empty session for `app`, e.g. so a waiter can subscribe before the first run. */
  async openSession(app: string | undefined, userId: string): Promise<string> {
    const name = this.requireApp(app ?? this.options.defaultApp).name;
    const session = await this.store.sessions.createSession({ appName: name, userId });
    return session.id;
  }

  /**
   * Records one decision by approval id alone (the session is looked up) and,
   * when it completes the pause, resumes the run like `resume`.
   */
  async decideApproval(
    decision: DecisionInput,
    decidedBy: string,
    sink?: RunEventSink,
  ): Promise<RunOutcome> {
    const sessionId = await this.store.findApproval(decision.approvalId);
    if (!sessionId) {
      throw new HoldpointError('APPROVAL_NOT_FOUND', `No approval ${decision.approvalId}.`, {
        approval_id: decision.approvalId,
      });
    }
    return this.resume({ sessionId, decidedBy, decisions: [decision] }, sink);
  }

  /** Hands events to the caller and to waiters anywhere, through the store's relay. */
  private emitter(sessionId: string, sink?: RunEventSink): RunEventSink {
    return (event) => {
      sink?.(event);
      this.store.relay.publish(sessionId, event);
    };
  }

  /** Holds events back until the claim is stored; drops them if it never is. */
  private afterClaim(claim: EarlyClaim, emit: RunEventSink): RunEventSink {
    let state: 'waiting' | 'stored' | 'lost' = 'waiting';
    const held: RunEvent[] = [];
    const settle = (stored: boolean) => {
      state = stored ? 'stored' : 'lost';
      if (stored) for (const event of held.splice(0)) emit(event);
    };
    claim.stored.then(settle, () => settle(false));
    return (event) => {
      if (state === 'waiting') held.push(event);
      else if (state === 'stored') emit(event);
    };
  }

  private get leaseMs(): number {
    return (this.options.runLeaseSeconds ?? 600) * 1000;
  }

  private requireApp(name: string): AgentApp {
    const app = this.options.apps.get(name);
    if (!app) {
      throw new HoldpointError(
        'UNKNOWN_APP',
        `Unknown app ${name}. Known apps: ${this.appNames.join(', ')}.`,
      );
    }
    return app;
  }

  private async requireMeta(sessionId: string): Promise<SessionMeta> {
    const meta = await this.store.getMeta(sessionId);
    if (!meta) {
      throw new HoldpointError('SESSION_NOT_FOUND', `No session ${sessionId}.`, {
        session_id: sessionId,
      });
    }
    return meta;
  }

  private async loadSession(meta: SessionMeta): Promise<Session> {
    const session = await this.store.sessions.getSession({
      appName: meta.app,
      userId: meta.userId,
      sessionId: meta.sessionId,
    });
    if (!session) {
      throw new HoldpointError('SESSION_NOT_FOUND', `No session ${meta.sessionId}.`);
    }
    return session;
  }

  /**
   * Waits until a new session is stored before its run's first commit. When it never
   * will be, forgets what this process holds of it and fails with the store's error.
   */
  private async settle(
    app: AgentApp,
    session: Pick<Session, 'id' | 'userId'>,
    stored: Promise<void>,
  ): Promise<void> {
    try {
      await stored;
    } catch (error) {
      const key = { appName: app.name, userId: session.userId, sessionId: session.id };
      await this.store.sessions.deleteSession(key).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Waits until an early claim is stored. When it lost its race, or the store failed,
   * forgets what the run appended on it (the run has stopped) and throws.
   */
  private async confirmClaim(claim: EarlyClaim): Promise<void> {
    let held: boolean;
    try {
      held = await claim.stored;
    } catch (error) {
      claim.discard();
      throw error;
    }
    if (!held) {
      claim.discard();
      throw new ClaimLost();
    }
  }

  private runner(app: AgentApp): Runner {
    let runner = this.runners.get(app.name);
    if (!runner) {
      runner = new Runner({
        appName: app.name,
        agent: app.rootAgent,
        sessionService: this.store.sessions,
        plugins: [this.gate],
      });
      this.runners.set(app.name, runner);
    }
    return runner;
  }

  private toBatch(request: ResumeRequest, now: number): DecisionBatch {
    const base = { decidedBy: request.decidedBy, at: now };
    if (request.decisions) return { decisions: request.decisions.map((d) => ({ ...d, ...base })) };
    if (request.approved === undefined) {
      throw new HoldpointError('VALIDATION_FAILED', 'Give either "approved" or "decisions".');
    }
    return { all: { approved: request.approved, reason: request.reason, ...base } };
  }

  /** Runs one segment of a run on ADK and stores where it ended: a pause or the end. */
  private async drive(
    app: AgentApp,
    session: Pick<Session, 'id' | 'userId'>,
    invocationId: string,
    newMessage: Content,
    {
      sink,
      resumedFrom,
      stored,
      claim,
    }: { sink?: RunEventSink; resumedFrom?: Pause; stored?: Promise<void>; claim?: EarlyClaim },
  ): Promise<RunOutcome> {
    const log = this.log(session.id, invocationId);
    const direct = this.emitter(session.id, sink);
    const emit = claim ? this.afterClaim(claim, direct) : direct;
    emit({
      type: 'run-started',
      sessionId: session.id,
      invocationId,
      app: app.name,
      resumed: resumedFrom !== undefined,
    });
    if (resumedFrom) {
      emit({ type: 'decided', approvals: resumedFrom.approvals, decisions: resumedFrom.decisions });
    }
    const denied = deniedCalls(resumedFrom);
    const collector = new SegmentCollector(app.hints);
    // A run whose session or claim is still on its way to the store stops at once
    // should it never get there.
    const ready = stored ? stored.then(() => true) : claim?.stored;
    const abort = new AbortController();
    ready?.then(
      (held) => held || abort.abort(),
      () => abort.abort(),
    );
    const lift = ready && this.gate.hold(session.id, ready, { models: claim !== undefined });
    try {
      for await (const event of this.runner(app).runAsync({
        userId: session.userId,
        sessionId: session.id,
        newMessage,
        abortSignal: abort.signal,
      })) {
        for (const runEvent of collector.add(event, denied)) emit(runEvent);
        // A streaming caller flushes each event before the next: give I/O a turn even
        // when the agent never waits (the offline models answer synchronously).
        if (sink) await yieldToIo();
      }
    } catch (error) {
      collector.error = error instanceof Error ? error.message : String(error);
    } finally {
      lift?.();
    }
    if (stored) await this.settle(app, session, stored);
    if (claim) await this.confirmClaim(claim);
    const now = this.now();
    if (collector.error !== undefined) {
      await this.store.finishRun(
        session.id,
        invocationId,
        {
          status: 'failed',
          error: collector.error,
          audit: [endAudit(session.id, invocationId, 'failed', now)],
        },
        now,
      );
      log.error({ error: collector.error }, 'run failed');
      const failure = new HoldpointError('RUN_FAILED', `The agent run failed: ${collector.error}`, {
        session_id: session.id,
        invocation_id: invocationId,
      });
      emit({
        type: 'failed',
        sessionId: session.id,
        invocationId,
        code: failure.code,
        message: failure.message,
      });
      throw failure;
    }
    const executed = [...collector.executedCallIds];
    if (collector.approvals.length > 0) {
      const expiresAt = now + this.options.pauseTtlSeconds * 1000;
      const pause: Pause = {
        pauseId: `pause-${randomUUID()}`,
        sessionId: session.id,
        invocationId,
        app: app.name,
        userId: session.userId,
        status: 'pending',
        approvals: collector.approvals.map((a) => ({ ...a, createdAt: now, expiresAt })),
        decisions: [],
        createdAt: now,
        expiresAt,
      };
      const requested = pause.approvals.map((a) =>
        approvalAudit(pause, a, 'requested', 'agent', now),
      );
      await this.store.savePause(
        pause,
        requested,
        expiresAt + this.options.retentionSeconds * 1000,
        executed,
      );
      log.info({ approvals: pause.approvals.map((a) => a.approvalId) }, 'run paused');
      for (const approval of pause.approvals) emit({ type: 'approval-requested', approval });
      const outcome = pendingOutcome(pause);
      emit({ type: 'outcome', outcome });
      return outcome;
    }
    await this.store.finishRun(
      session.id,
      invocationId,
      {
        status: 'completed',
        result: collector.text,
        audit: [endAudit(session.id, invocationId, 'completed', now)],
        executedCallIds: executed,
      },
      now,
    );
    log.info('run completed');
    const outcome: RunOutcome = {
      status: 'completed',
      sessionId: session.id,
      invocationId,
      app: app.name,
      result: collector.text,
      artifacts: collector.artifacts,
    };
    emit({ type: 'outcome', outcome });
    return outcome;
  }

  private log(sessionId: string, invocationId: string): Logger {
    return this.options.logger.child({ session_id: sessionId, invocation_id: invocationId });
  }
}

/** A run started on an early claim that another writer beat: nothing of it was stored. */
class ClaimLost extends Error {}

/** Tool calls a person rejected in `pause`: their ADK responses mean "denied", not "failed". */
function deniedCalls(pause: Pause | undefined): Set<string> {
  const rejected = new Set(pause?.decisions.filter((d) => !d.approved).map((d) => d.approvalId));
  return new Set(
    pause?.approvals.filter((a) => rejected.has(a.approvalId)).map((a) => a.toolCallId) ?? [],
  );
}

function undecided(pause: Pause | undefined): ApprovalRequest[] {
  if (pause?.status !== 'pending') return [];
  const decided = new Set(pause.decisions.map((d) => d.approvalId));
  return pause.approvals.filter((a) => !decided.has(a.approvalId));
}

function pendingOutcome(pause: Pause): PendingOutcome {
  const open = undecided(pause);
  return {
    status: 'pending_approval',
    sessionId: pause.sessionId,
    invocationId: pause.invocationId,
    app: pause.app,
    message: open.map((a) => a.hint).join('\n'),
    approvals: open,
    decisions: pause.decisions,
    expiresAt: pause.expiresAt,
  };
}

function endAudit(
  sessionId: string,
  invocationId: string,
  action: 'completed' | 'failed',
  at: number,
): AuditEntry {
  return { at, action, sessionId, invocationId, actor: 'agent' };
}

/** The function response that carries a person's decision back into ADK. */
function answerPart(approval: ApprovalRequest, decisions: Decision[]): Part {
  const decision = decisions.find((d) => d.approvalId === approval.approvalId);
  const approved = decision?.approved === true;
  if (approval.kind === 'confirmation') {
    return {
      functionResponse: {
        id: approval.approvalId,
        name: CONFIRMATION_CALL,
        response: { confirmed: approved, payload: decision?.payload },
      },
    };
  }
  const value = decision?.payload;
  const response: Record<string, unknown> = approved
    ? typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value }
    : { error: 'rejected', reason: decision?.reason ?? 'The person declined.' };
  return { functionResponse: { id: approval.toolCallId, name: approval.toolName, response } };
}
