import { randomUUID } from 'node:crypto';
import type { BaseMemoryService } from '@google/adk';
import type { Logger } from 'pino';
import type { AgentApp, ApprovalPolicy } from '../agents/agent-app.js';
import { type AppShape, appShape, shapeChanges } from '../agents/app-shape.js';
import { type Clock, systemClock } from '../core/clock.js';
import { HoldpointError, runNotFound, sessionNotFound } from '../core/errors.js';
import type { OptionSettingValues } from '../core/settings/setting-options.js';
import { entryOf } from '../core/tool-entry.js';
import type { Lease, RunRecord } from '../core/types.js';
import type { HoldpointStore, SessionSnapshot } from '../store/store.js';
import { holdpointMetrics } from '../telemetry/metrics.js';
import type { RateLimits } from './limits/rate-limits.js';
import { DeliveryDispatcher, type DispatcherOptions } from './notify/dispatcher.js';
import type { RunEventSink } from './run-event.js';

export interface RuntimeOptions {
  store: HoldpointStore;
  apps: Map<string, AgentApp>;
  defaultApp: string;
  /**
   * The settings declared options (`pauseTtlSeconds`, `runLeaseSeconds`,
   * `approvalTimeoutSeconds`, …), each at its default unless set.
   */
  settings: OptionSettingValues;
  /** How long an ended pause is kept, so late callers learn it expired instead of "not found". */
  retentionSeconds: number;
  logger: Logger;
  /** Per-principal rate limits the transports count requests against; none when absent. */
  rateLimits?: RateLimits;
  /** ADK's memory service, handed to every run (tools reach it through their context). */
  memoryService?: BaseMemoryService;
  /**
   * How long the health check waits for the store before it says unavailable (default
   * HEALTH_TIMEOUT_MS), so a load balancer's probe gets its answer within its own timeout.
   */
  healthTimeoutMs?: number;
  clock?: Clock;
  /**
   * Notifications of approval events: commits plan deliveries for these channels and the
   * dispatcher sends them (kept `retentionSeconds`). None when absent.
   */
  notifications?: DispatcherOptions;
}

/** What every phase of the runtime works with: the store, the apps, time and the log. */
export class RuntimeContext {
  readonly store: HoldpointStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly leaseMs: number;
  readonly pauseTtlMs: number;
  readonly retentionMs: number;
  /**
   * Pauses this process holds in place (`waitForApproval`): each entry ends its hold at
   * once, releasing the pause to be resumed anywhere, for a process that stops.
   */
  readonly holds = new Set<() => Promise<void>>();
  /** Sends the outbox's deliveries, when notifications are configured. */
  readonly dispatcher?: DeliveryDispatcher;
  private readonly shapes = new WeakMap<object, AppShape>();

  constructor(readonly options: RuntimeOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger;
    // A running segment renews its lease every third of it while it works, so a process
    // that dies frees its sessions this soon.
    this.leaseMs = options.settings.runLeaseSeconds * 1000;
    this.pauseTtlMs = options.settings.pauseTtlSeconds * 1000;
    this.retentionMs = options.retentionSeconds * 1000;
    if (options.notifications) {
      const store = this.store;
      this.dispatcher = new DeliveryDispatcher(
        store,
        {
          // A person away (out of office) is reached through their delegate meanwhile.
          delegateOf: async (userId, now) => {
            const delegation = await store.delegations.get(userId, now);
            return delegation && delegation.from <= now ? delegation.delegate : undefined;
          },
          onSettled: (delivery, result) =>
            holdpointMetrics().recordDelivery(delivery.channel, result.status),
          ...options.notifications,
        },
        this.clock,
        this.logger.child({ component: 'notifications' }),
      );
    }
  }

  /** Names of the apps this runtime serves. */
  get appNames(): string[] {
    return [...this.options.apps.keys()];
  }

  requireApp(name: string): AgentApp {
    const app = this.options.apps.get(name);
    if (!app) {
      throw new HoldpointError(
        'UNKNOWN_APP',
        `Unknown app ${name}. Known apps: ${this.appNames.join(', ')}.`,
      );
    }
    return app;
  }

  /** The session's meta, latest pause and current run; SESSION_NOT_FOUND when it is gone. */
  async requireSnapshot(sessionId: string): Promise<SessionSnapshot> {
    const snapshot = await this.store.getSnapshot(sessionId);
    if (!snapshot) throw sessionNotFound(sessionId);
    return snapshot;
  }

  /** The shape of `app`'s agent tree and tools, computed once per app. */
  shapeOf(app: AgentApp): AppShape {
    let shape = this.shapes.get(app.rootAgent);
    if (!shape) {
      shape = appShape(app.rootAgent);
      this.shapes.set(app.rootAgent, shape);
    }
    return shape;
  }

  /**
   * Refuses, before anything is recorded, to go on with `run` on an app whose agent
   * tree or tools changed since the run started (APP_CHANGED, saying what changed),
   * unless the app declares the run's shape compatible.
   */
  requireUnchangedApp(app: AgentApp, run: RunRecord | undefined): void {
    if (!run?.appFingerprint) return;
    const now = this.shapeOf(app);
    if (run.appFingerprint === now.fingerprint || app.compatibleWith?.has(run.appFingerprint)) {
      return;
    }
    const { added, removed } = shapeChanges(run.appShape ?? [], now.parts);
    throw new HoldpointError(
      'APP_CHANGED',
      `App ${app.name} changed since run ${run.invocationId} started, so it cannot go on with it. ` +
        `If this version can, list ${run.appFingerprint} in the app's compatibleWith.`,
      {
        invocation_id: run.invocationId,
        run_fingerprint: run.appFingerprint,
        app_fingerprint: now.fingerprint,
        added,
        removed,
      },
    );
  }

  /** The session a run belongs to; RUN_NOT_FOUND when no stored session holds it. */
  async requireRunSession(invocationId: string): Promise<string> {
    const sessionId = await this.store.findRun(invocationId);
    if (!sessionId) throw runNotFound(invocationId);
    return sessionId;
  }

  /** A new segment's lease, from now. */
  newLease(now: number): Lease {
    return { owner: `seg-${randomUUID()}`, until: now + this.leaseMs };
  }

  /** How long a continuous stream waits for `toolName`'s approval in `app`, and what then. */
  approvalPolicy(app: string, toolName: string): Required<ApprovalPolicy> {
    const policy = entryOf(this.options.apps.get(app)?.approvalPolicies, toolName);
    return {
      timeoutSeconds: policy?.timeoutSeconds ?? this.options.settings.approvalTimeoutSeconds,
      onTimeout: policy?.onTimeout ?? this.options.settings.approvalTimeoutPolicy,
    };
  }

  /** Hands events to the caller and to waiters anywhere, through the store's relay. */
  emitter(sessionId: string, sink?: RunEventSink): RunEventSink {
    return (event) => {
      sink?.(event);
      this.store.relay.publish(sessionId, event);
    };
  }

  log(sessionId: string, invocationId?: string): Logger {
    return this.logger.child({ session_id: sessionId, invocation_id: invocationId });
  }
}
