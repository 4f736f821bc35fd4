import { createEvent, type Event } from '@google/adk';
import type { ApprovalEvent } from '../core/approval-event.js';
import type { Principal } from '../core/principal.js';
import type { Approvers, AuditEntry, Decision, Lease, Pause, RunRecord } from '../core/types.js';
import { savePauseTransition } from '../session/transitions/index.js';
import { type DeliveryPlanner, deliveryIdOf } from './outbox.js';
import type { HoldpointStore, SegmentEnd, SessionAppend } from './store.js';

/** Test support: records as the runtime makes them, for driving a store directly. */
export const APP = 'contract-app';
export const HOUR = 3_600_000;
/** Who decides in store tests: an admin, whom the default approval policy lets decide. */
export const DECIDER: Principal = { id: 'alice', roles: ['admin'] };
let counter = 0;

export function unique(name: string): string {
  counter += 1;
  return `${name}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export function newRun(sessionId: string, userId: string, now: number): RunRecord {
  return {
    invocationId: unique('inv'),
    sessionId,
    app: APP,
    userId,
    query: 'send $200 to Jiro',
    status: 'running',
    startedAt: now,
    updatedAt: now,
  };
}

export function lease(now: number, ms = 60_000): Lease {
  return { owner: unique('seg'), until: now + ms };
}

export function newPause(
  run: RunRecord,
  approvals: number,
  now: number,
  ttlMs = HOUR,
  kind: 'confirmation' | 'input' = 'confirmation',
): Pause {
  return {
    pauseId: unique('pause'),
    sessionId: run.sessionId,
    invocationId: run.invocationId,
    app: APP,
    userId: run.userId,
    status: 'pending',
    approvals: Array.from({ length: approvals }, (_, i) => ({
      approvalId: unique(`approval${i}`),
      kind,
      toolName: 'process_payment',
      toolCallId: unique('call'),
      args: { amount: 200, recipient: 'Jiro' },
      hint: 'Send $200 to Jiro?',
      createdAt: now,
      expiresAt: now + ttlMs,
    })),
    decisions: [],
    createdAt: now,
    expiresAt: now + ttlMs,
  };
}

export function requested(pause: Pause): AuditEntry[] {
  return pause.approvals.map((a) => ({
    at: pause.createdAt,
    action: 'requested',
    sessionId: pause.sessionId,
    invocationId: pause.invocationId,
    actor: 'agent',
    approvalId: a.approvalId,
    toolName: a.toolName,
  }));
}

export function decision(approvalId: string, at: number, approved = true): Decision {
  return { approvalId, approved, decidedBy: 'alice', at };
}

/** A user event saying `text`, with an optional state delta. */
export function userEvent(
  invocationId: string,
  text: string,
  stateDelta: Record<string, unknown> = {},
): Event {
  return createEvent({
    invocationId,
    author: 'user',
    content: { role: 'user', parts: [{ text }] },
    actions: { stateDelta },
  });
}

/** The end of a segment of `run` under `held`, having appended `append`. */
export function segmentEnd(
  run: RunRecord,
  held: Lease,
  now: number,
  append: SessionAppend = { events: [], state: {} },
  executedCallIds: string[] = [],
): SegmentEnd {
  return {
    sessionId: run.sessionId,
    invocationId: run.invocationId,
    lease: held,
    append,
    executedCallIds,
    now,
  };
}

/** A new session whose first run holds it under a fresh lease. */
export async function runningSession(
  store: HoldpointStore,
  now = Date.now(),
  userId = unique('user'),
) {
  const sessionId = unique('session');
  const run = newRun(sessionId, userId, now);
  const held = lease(now);
  await store.createSession({ sessionId, app: APP, userId, createdAt: now }, { run, lease: held });
  return { sessionId, userId, run, held, now };
}

/** A session paused on a pause with `approvals` approval requests. */
export async function pausedSession(
  store: HoldpointStore,
  approvals = 1,
  now = Date.now(),
  ttlMs = HOUR,
  kind: 'confirmation' | 'input' = 'confirmation',
) {
  const started = await runningSession(store, now);
  const pause = newPause(started.run, approvals, now, ttlMs, kind);
  await store.apply(started.sessionId, savePauseTransition, [
    segmentEnd(started.run, started.held, now),
    pause,
    requested(pause),
    now + 2 * ttlMs,
  ]);
  return { ...started, pause };
}

/** A session paused on one approval that `approvers` may decide, started by its owner. */
export async function pausedWithApprovers(
  store: HoldpointStore,
  approvers: Approvers,
  now = Date.now(),
) {
  const started = await runningSession(store, now);
  const pause = newPause(started.run, 1, now);
  for (const approval of pause.approvals) approval.approvers = approvers;
  await store.apply(started.sessionId, savePauseTransition, [
    segmentEnd(started.run, started.held, now),
    pause,
    requested(pause),
    now + 2 * HOUR,
  ]);
  return { ...started, pause, approvalId: pause.approvals[0]?.approvalId ?? '' };
}

/** `who`'s decision on `approvalId`. */
export function vote(approvalId: string, who: Principal, at: number, approved = true): Decision {
  return { approvalId, approved, decidedBy: who.id, at };
}

/** A valid approval event for store tests (its content does not matter to the outbox). */
export function testEvent(line: AuditEntry): ApprovalEvent {
  const at = new Date(line.at).toISOString();
  return {
    v: 1,
    id: line.hash ?? '',
    type: line.action as ApprovalEvent['type'],
    at,
    app: APP,
    session_id: line.sessionId,
    invocation_id: line.invocationId,
    pause_id: 'pause',
    actor: line.actor,
    approval: {
      approval_id: line.approvalId ?? '',
      kind: 'confirmation',
      tool_name: line.toolName ?? 'process_payment',
      args: { amount: 200, tags: [], nested: {} },
      args_hash: line.argsHash ?? '',
      hint: 'Send $200 to Jiro?',
      created_at: at,
      expires_at: at,
      approvers: { owner: true, roles: [], users: [], quorum: 1, requester_may_approve: true },
      status: 'pending',
    },
  };
}

/**
 * A planner for store tests: one delivery through channel `test` per approval line of a
 * commit, due when its line was written.
 */
export const testPlanner: DeliveryPlanner = (_before, writes) =>
  writes.audit
    .filter((line) => line.approvalId && (line.action === 'requested' || line.action === 'decided'))
    .map((line) => ({
      deliveryId: deliveryIdOf(line.hash ?? '', 'test', 'endpoint:test'),
      eventId: line.hash ?? '',
      event: testEvent(line),
      channel: 'test',
      recipient: 'endpoint:test',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: line.at,
      createdAt: line.at,
      updatedAt: line.at,
      version: 1,
    }));
