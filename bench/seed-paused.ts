import { randomUUID } from 'node:crypto';
import type { Event } from '@google/adk';
import type { ApprovalRequest, Lease, Pause, RunRecord } from '../src/core/types.js';
import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import { approvalAudit } from '../src/session/audit/audit-entries.js';
import { savePauseTransition } from '../src/session/transitions/index.js';
import type { HoldpointStore } from '../src/store/store.js';
import { APP, QUERY } from './holdpoint-cycles.js';

/** What the runtime stored for one real paused run, to be copied into many sessions. */
export interface PausedTemplate {
  app: string;
  query: string;
  events: Event[];
  state: Record<string, unknown>;
  approvals: ApprovalRequest[];
}

/**
 * Pauses one real run of `userId` with the runtime and reads back what it stored:
 * the session's events and state and its pause's approvals.
 */
export async function capturePausedTemplate(
  runtime: HoldpointRuntime,
  store: HoldpointStore,
  userId: string,
): Promise<PausedTemplate> {
  const outcome = await runtime.operations.startRun(
    { query: QUERY, app: APP },
    { id: userId, roles: [] },
  );
  if (outcome.status !== 'pending_approval') {
    throw new Error(`the template run ended ${outcome.status}, expected pending_approval`);
  }
  const [snapshot, session] = await Promise.all([
    store.getSnapshot(outcome.sessionId),
    store.loadSession(outcome.sessionId, APP, userId),
  ]);
  const approvals = snapshot?.pause?.approvals;
  if (!session || !approvals) throw new Error('the template session was not stored as paused');
  return { app: APP, query: QUERY, events: session.events, state: session.state, approvals };
}

/** How many sessions to seed, how fast, for whom, and how long they wait. */
export interface SeedPlan {
  count: number;
  /** Sessions being written at once. */
  concurrency: number;
  /** Seeded sessions are owned by `<ownerPrefix>-0`, `-1`, …, this many each. */
  sessionsPerOwner: number;
  ownerPrefix: string;
  /** Each pause expires this long after it is written. */
  pauseTtlMs: number;
  /** Each session is kept this long after its pause expires. */
  retentionMs: number;
}

/**
 * Writes one paused session through the store's own transitions, as a run would:
 * a new session whose first run holds a lease, then the pause with the template's
 * events and fresh approval ids.
 */
async function seedOne(
  store: HoldpointStore,
  template: PausedTemplate,
  userId: string,
  plan: SeedPlan,
): Promise<void> {
  const now = Date.now();
  const sessionId = randomUUID();
  const invocationId = `inv-${randomUUID()}`;
  const { app, query } = template;
  const run: RunRecord = {
    invocationId,
    sessionId,
    app,
    userId,
    query,
    status: 'running',
    startedAt: now,
    updatedAt: now,
  };
  const lease: Lease = { owner: `seed-${randomUUID()}`, until: now + 60_000 };
  await store.createSession({ sessionId, app, userId, createdAt: now }, { run, lease });
  const expiresAt = now + plan.pauseTtlMs;
  const pause: Pause = {
    pauseId: `pause-${randomUUID()}`,
    sessionId,
    invocationId,
    app,
    userId,
    status: 'pending',
    approvals: template.approvals.map((approval) => ({
      ...approval,
      approvalId: `adk-${randomUUID()}`,
      createdAt: now,
      expiresAt,
    })),
    decisions: [],
    createdAt: now,
    expiresAt,
  };
  const requested = pause.approvals.map((a) => approvalAudit(pause, a, 'requested', 'agent', now));
  await store.apply(sessionId, savePauseTransition, [
    {
      sessionId,
      invocationId,
      lease,
      append: { events: template.events, state: template.state },
      executedCallIds: [],
      now,
    },
    pause,
    requested,
    expiresAt + plan.retentionMs,
  ]);
}

/** Seeds `plan.count` paused sessions copied from `template`, `plan.concurrency` at a time. */
export async function seedPaused(
  store: HoldpointStore,
  template: PausedTemplate,
  plan: SeedPlan,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < plan.count) {
      const index = next++;
      const owner = `${plan.ownerPrefix}-${Math.floor(index / plan.sessionsPerOwner)}`;
      await seedOne(store, template, owner, plan);
    }
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, plan.count) }, worker));
}
