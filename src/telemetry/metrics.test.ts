import { metrics } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/manual-clock.test-support.js';
import type { Principal } from '../core/principal.js';
import type { Approvers, AuditAction } from '../core/types.js';
import { decideTransition } from '../session/transitions/index.js';
import type { HoldpointStore, SessionSnapshot } from '../store/store.js';
import {
  APP,
  DECIDER,
  decision,
  lease,
  pausedSession,
  pausedWithApprovers,
  runningSession,
  vote,
} from '../store/store-fixtures.test-support.js';
import { TestStores } from '../store/test-stores.test-support.js';
import { testedStores } from '../store/tested-stores.test-support.js';
import { holdpointMetrics } from './metrics.js';
import { prometheusTextProblems, samplesOf } from './prometheus-text.test-support.js';
import { type StoreMetrics, storeMetrics } from './store-metrics.js';

// What the store's commits tell the metrics, read as Prometheus scrapes them: from
// Holdpoint's own endpoint and from a host's OpenTelemetry SDK (a global MeterProvider),
// which gets the same instruments.

const TOOL = 'process_payment';
const DURATION_COUNT = 'holdpoint_approval_decision_duration_seconds_count';

const host = new PrometheusExporter({ preventServerStart: true });
const hostProvider = new MeterProvider({ readers: [host] });
metrics.setGlobalMeterProvider(hostProvider);
const serializer = new PrometheusSerializer('', false);

const stores = new TestStores();
afterAll(async () => {
  await stores.cleanup();
  await hostProvider.shutdown();
});

/** A transition writing one approval audit line of `action` on the session's pause. */
function approvalLine(action: AuditAction) {
  return (snapshot: SessionSnapshot) => {
    const pause = snapshot.pause;
    const approval = pause?.approvals[0];
    return {
      writes: {
        meta: snapshot.meta,
        audit: [
          {
            at: Date.now(),
            action,
            sessionId: snapshot.meta.sessionId,
            invocationId: snapshot.meta.invocationId ?? '',
            actor: 'system',
            approvalId: approval?.approvalId,
            toolName: approval?.toolName,
          },
        ],
      },
    };
  };
}

describe.each(testedStores(['memory', 'redis'] as const))('metrics of a %s store', (kind) => {
  let store: HoldpointStore;
  let recorded: StoreMetrics;
  let clock: ManualClock;

  afterEach(async () => {
    await recorded.close();
    await stores.close();
  });

  function open() {
    store = stores.byKind[kind]?.() as HoldpointStore;
    clock = new ManualClock(Date.now());
    recorded = storeMetrics(store, 'prometheus', clock);
  }

  /** Both scrapes, Holdpoint's endpoint's and the host SDK's, each read by name and labels. */
  async function scrapes() {
    const own = await recorded.prometheus?.scrape();
    expect(prometheusTextProblems(own ?? '')).toEqual([]);
    const hosts = samplesOf(serializer.serialize((await host.collect()).resourceMetrics));
    // Holdpoint's endpoint names the decision histogram with its unit (`_seconds`); the
    // host's exporter names it as the instrument is named.
    const onHost = (name: string, labels?: Record<string, string>) =>
      hosts(name.replace('_duration_seconds_', '_duration_'), labels);
    return [samplesOf(own ?? ''), onHost];
  }

  it('gauges the runs holding a lease at the clock’s time: running, then interrupted once it lapsed', async () => {
    open();
    const runs = async () =>
      (await scrapes()).map((read) => [
        read('holdpoint_runs', { state: 'running' }),
        read('holdpoint_runs', { state: 'interrupted' }),
      ]);
    expect(await runs()).toEqual([
      [0, 0],
      [0, 0],
    ]);
    const { held } = await runningSession(store, clock.now());
    expect(await runs()).toEqual([
      [1, 0],
      [1, 0],
    ]);
    clock.advance(held.until - clock.now());
    expect(await runs()).toEqual([
      [0, 1],
      [0, 1],
    ]);
  });

  it('records a quorum approval once it is settled, not at its first vote', async () => {
    open();
    const before = await scrapes();
    const count = (read: (typeof before)[number]) =>
      read(DURATION_COUNT, { app: APP, tool: TOOL, outcome: 'approved' }) ?? 0;
    const twoApprovers: Approvers = {
      owner: false,
      roles: ['approver'],
      users: [],
      quorum: 2,
      requesterMayApprove: false,
    };
    const maria: Principal = { id: 'maria', roles: ['approver'] };
    const jiro: Principal = { id: 'jiro', roles: ['approver'] };
    const now = Date.now();
    const { sessionId, approvalId } = await pausedWithApprovers(store, twoApprovers, now);
    const waiting = { app: APP, tool: TOOL };
    for (const read of await scrapes())
      expect(read('holdpoint_approvals_waiting', waiting)).toBe(1);
    await store.apply(sessionId, decideTransition, [
      { decisions: [vote(approvalId, maria, now + 1_000)] },
      now + 1_000,
      lease(now),
      maria,
    ]);
    let after = await scrapes();
    after.forEach((read, i) => {
      expect(count(read)).toBe(count(before[i] as (typeof before)[number]));
      expect(read('holdpoint_approvals_waiting', waiting)).toBe(1);
    });
    await store.apply(sessionId, decideTransition, [
      { decisions: [vote(approvalId, jiro, now + 4_000)] },
      now + 4_000,
      lease(now),
      jiro,
    ]);
    after = await scrapes();
    after.forEach((read, i) => {
      expect(count(read)).toBe(count(before[i] as (typeof before)[number]) + 1);
      expect(read('holdpoint_approvals_waiting', waiting)).toBe(0);
    });
  });

  it('records one decision for one approval however many decide it at once', async () => {
    open();
    const before = await scrapes();
    const count = (read: (typeof before)[number]) =>
      read(DURATION_COUNT, { app: APP, tool: TOOL, outcome: 'approved' }) ?? 0;
    const now = Date.now();
    const { sessionId, pause } = await pausedSession(store, 1, now);
    const approvalId = pause.approvals[0]?.approvalId as string;
    await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.apply(sessionId, decideTransition, [
          { decisions: [decision(approvalId, now + i)] },
          now + i,
          lease(now),
          DECIDER,
        ]),
      ),
    );
    const after = await scrapes();
    after.forEach((read, i) => {
      expect(count(read)).toBe(count(before[i] as (typeof before)[number]) + 1);
    });
  });

  it("counts reminders and escalations from the commits' audit lines, and deliveries as told", async () => {
    open();
    const labels = { app: APP, tool: TOOL };
    const delivery = { channel: 'webhook', result: 'gave_up' };
    const before = await scrapes();
    const { sessionId } = await pausedSession(store, 1);
    await store.apply(sessionId, approvalLine('reminded'), []);
    await store.apply(sessionId, approvalLine('reminded'), []);
    await store.apply(sessionId, approvalLine('escalated'), []);
    holdpointMetrics().recordDelivery('webhook', 'gave_up');
    const after = await scrapes();
    after.forEach((read, i) => {
      const was = before[i] as (typeof before)[number];
      const moved = (name: string, on: Record<string, string>) =>
        (read(name, on) ?? 0) - (was(name, on) ?? 0);
      expect(moved('holdpoint_approvals_reminders_total', labels)).toBe(2);
      expect(moved('holdpoint_approvals_escalations_total', labels)).toBe(1);
      expect(moved('holdpoint_notifications_deliveries_total', delivery)).toBe(1);
    });
  });

  it('keeps recording for the host once a Holdpoint closed; off serves no endpoint', async () => {
    open();
    await recorded.close();
    const hostCount = async () =>
      samplesOf(serializer.serialize((await host.collect()).resourceMetrics))(
        'holdpoint_notifications_deliveries_total',
        { channel: 'email', result: 'sent' },
      ) ?? 0;
    const hostBefore = await hostCount();
    holdpointMetrics().recordDelivery('email', 'sent');
    expect(await hostCount()).toBe(hostBefore + 1);
    recorded = storeMetrics(store, 'off', clock);
    expect(recorded.prometheus).toBeUndefined();
  });
});
