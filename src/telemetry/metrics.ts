import {
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type ObservableGauge,
  type ObservableResult,
} from '@opentelemetry/api';
import type { RunRecord } from '../core/types.js';
import { settlingDecision } from '../session/decision/settlement.js';
import type { RunCounts, SessionSnapshot, SessionWrites } from '../store/store.js';
import type { WaitingCount } from '../store/waiting-counts.js';

/** The meter every Holdpoint instrument belongs to. */
export const METER_NAME = 'holdpoint';

/** What became of one attempt to deliver a notification. */
export type DeliveryResult = 'sent' | 'failed' | 'gave_up';

/**
 * What happened to a run, as its commits store it: it started, paused for people,
 * resumed after their decisions, ended (completed, failed, cancelled, expired), or was
 * recovered after its process stopped.
 */
export type RunMetricEvent =
  | 'started'
  | 'paused'
  | 'resumed'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'expired'
  | 'recovered';

/** What the gauges read at each collection: a store's counts, across every instance sharing it. */
export interface GaugeReads {
  /** How many approvals wait now, per app and tool. */
  waiting(): Promise<WaitingCount[]>;
  /** How many runs hold a lease now, in force or lapsed. */
  runs(): Promise<RunCounts>;
}

/**
 * What Holdpoint counts, recorded on the global OpenTelemetry meter provider (a no-op
 * until the host sets one) and on every Prometheus endpoint this process serves.
 */
export interface HoldpointMetrics {
  /**
   * A reminder about an approval of `tool` (of `app`) went out. A commit's `reminded`
   * audit lines are counted already (`recordCommitMetrics`): call it only for reminders
   * that write none.
   */
  recordReminder(app: string, tool: string): void;
  /**
   * An approval of `tool` (of `app`) was escalated one step. A commit's `escalated` audit
   * lines are counted already: call it only for escalations that write none.
   */
  recordEscalation(app: string, tool: string): void;
  /** A notification through `channel` was sent, failed (to be retried) or given up. */
  recordDelivery(channel: string, result: DeliveryResult): void;
  /**
   * An approval of `tool` (of `app`) was settled, `seconds` after it was asked. Commits
   * that settle approvals are recorded already: call it only for decisions stored elsewhere.
   */
  recordDecision(app: string, tool: string, approved: boolean, seconds: number): void;
  /** A run of `app` started, paused, resumed, ended or was recovered (commits record it). */
  recordRunEvent(app: string, event: RunMetricEvent): void;
  /** An HTTP request to `route` was answered `status`, `seconds` after it came. */
  recordHttpRequest(method: string, route: string, status: number, seconds: number): void;
  /** A read or a commit of the `store` kind took `seconds`, and failed with `failure` if given. */
  recordStoreRoundTrip(store: string, roundTrip: string, seconds: number, failure?: string): void;
  /** A pause of `app` was recorded expired `seconds` after its time (commits record it). */
  recordExpiryLag(app: string, seconds: number): void;
}

/** Time to decision, in seconds: from a second to a week. */
const DECISION_BUCKETS = [
  1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14_400, 28_800, 86_400, 172_800, 604_800,
];

/** How late an expiry was recorded, in seconds: from 0.1 s to an hour. */
const LAG_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** Time of a read or a commit, in seconds: from 0.1 ms to 10 s. */
const STORE_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 10];

/** Time to answer an HTTP request, in seconds: from 5 ms to a minute. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface Instruments {
  waiting: ObservableGauge;
  runs: ObservableGauge;
  decision: Histogram;
  reminders: Counter;
  escalations: Counter;
  deliveries: Counter;
  runEvents: Counter;
  httpRequests: Histogram;
  storeRoundTrips: Histogram;
  expiryLag: Histogram;
}

function instrumentsOf(meter: Meter): Instruments {
  return {
    waiting: meter.createObservableGauge('holdpoint.approvals.waiting', {
      description: 'Approvals waiting for people now, across every instance sharing the store',
      unit: '{approval}',
    }),
    runs: meter.createObservableGauge('holdpoint.runs', {
      description:
        'Runs holding a lease now, across every instance sharing the store, by state: running (a process drives them) or interrupted (their process stopped; until recovered)',
      unit: '{run}',
    }),
    decision: meter.createHistogram('holdpoint.approval.decision.duration', {
      description: 'Time from an approval request to the decision that settled it',
      unit: 's',
      advice: { explicitBucketBoundaries: DECISION_BUCKETS },
    }),
    reminders: meter.createCounter('holdpoint.approvals.reminders', {
      description: 'Reminders about waiting approvals',
      unit: '{reminder}',
    }),
    escalations: meter.createCounter('holdpoint.approvals.escalations', {
      description: 'Escalation steps taken on waiting approvals',
      unit: '{escalation}',
    }),
    deliveries: meter.createCounter('holdpoint.notifications.deliveries', {
      description: 'Notification delivery attempts, by channel and result',
      unit: '{delivery}',
    }),
    runEvents: meter.createCounter('holdpoint.run.events', {
      description:
        'What happened to runs, by app and event: started, paused, resumed, completed, failed, cancelled, expired, recovered',
      unit: '{event}',
    }),
    httpRequests: meter.createHistogram('holdpoint.http.request.duration', {
      description: 'Time to answer an HTTP request of the API, by method, route and status',
      unit: 's',
      advice: { explicitBucketBoundaries: HTTP_BUCKETS },
    }),
    storeRoundTrips: meter.createHistogram('holdpoint.store.round_trip.duration', {
      description:
        "Time of a session's read or commit in the store, by store, round trip and outcome (ok, or the error's code)",
      unit: 's',
      advice: { explicitBucketBoundaries: STORE_BUCKETS },
    }),
    expiryLag: meter.createHistogram('holdpoint.pause.expiry.lag', {
      description:
        'How long after its time a pause was recorded expired (by the sweep, or a read that found it past): how far the sweep runs behind',
      unit: 's',
      advice: { explicitBucketBoundaries: LAG_BUCKETS },
    }),
  };
}

/** Observes what `reads` says of waiting approvals on `result`, one point per app and tool. */
async function observeWaiting(result: ObservableResult, reads: GaugeReads): Promise<void> {
  // A store that does not answer now leaves its points out of this collection only.
  const counts = await reads.waiting().catch(() => []);
  for (const { app, tool, count } of counts) result.observe(count, { app, tool });
}

/** Observes what `reads` says of runs on `result`, one point per state. */
async function observeRuns(result: ObservableResult, reads: GaugeReads): Promise<void> {
  const counts = await reads.runs().catch(() => undefined);
  if (!counts) return;
  result.observe(counts.running, { state: 'running' });
  result.observe(counts.interrupted, { state: 'interrupted' });
}

/** Where the gauges of the global meter provider read (each live Holdpoint's store). */
const globalReads = new Set<GaugeReads>();

/** The gauges' callbacks: each observes what `from()` reads, one after the other. */
function observeEach(instruments: Instruments, from: () => Iterable<GaugeReads>): void {
  instruments.waiting.addCallback(async (result) => {
    for (const reads of from()) await observeWaiting(result, reads);
  });
  instruments.runs.addCallback(async (result) => {
    for (const reads of from()) await observeRuns(result, reads);
  });
}

/** The instruments on the global meter provider, made again when the host sets another. */
let onGlobal: { provider: MeterProvider; instruments: Instruments } | undefined;
/** The instruments of this process's Prometheus endpoints: every event is recorded there too. */
const onEndpoints = new Set<Instruments>();

function everyInstruments(): Instruments[] {
  const provider = metrics.getMeterProvider();
  if (onGlobal?.provider !== provider) {
    const instruments = instrumentsOf(provider.getMeter(METER_NAME));
    observeEach(instruments, () => globalReads);
    onGlobal = { provider, instruments };
  }
  return [onGlobal.instruments, ...onEndpoints];
}

const RECORDER: HoldpointMetrics = {
  recordReminder(app, tool) {
    for (const { reminders } of everyInstruments()) reminders.add(1, { app, tool });
  },
  recordEscalation(app, tool) {
    for (const { escalations } of everyInstruments()) escalations.add(1, { app, tool });
  },
  recordDelivery(channel, result) {
    for (const { deliveries } of everyInstruments()) deliveries.add(1, { channel, result });
  },
  recordDecision(app, tool, approved, seconds) {
    const outcome = approved ? 'approved' : 'denied';
    for (const { decision } of everyInstruments()) decision.record(seconds, { app, tool, outcome });
  },
  recordRunEvent(app, event) {
    for (const { runEvents } of everyInstruments()) runEvents.add(1, { app, event });
  },
  recordHttpRequest(method, route, status, seconds) {
    const labels = { method, route, status: String(status) };
    for (const { httpRequests } of everyInstruments()) httpRequests.record(seconds, labels);
  },
  recordExpiryLag(app, seconds) {
    for (const { expiryLag } of everyInstruments()) expiryLag.record(seconds, { app });
  },
  recordStoreRoundTrip(store, roundTrip, seconds, failure) {
    const labels = { store, round_trip: roundTrip, outcome: failure ?? 'ok' };
    for (const { storeRoundTrips } of everyInstruments()) storeRoundTrips.record(seconds, labels);
  },
};

/**
 * Holdpoint's metrics: what the runtime and its channels record. The instruments use
 * the global OpenTelemetry API, so a host with its own SDK (a MeterProvider it set
 * globally) receives them, beside `/metrics` when Holdpoint serves Prometheus.
 */
export function holdpointMetrics(): HoldpointMetrics {
  return RECORDER;
}

/**
 * Lets the global meter provider's gauges (`holdpoint.approvals.waiting`,
 * `holdpoint.runs`) read `reads` (a store's counts), until the returned function is called.
 */
export function readGaugesOnGlobal(reads: GaugeReads): () => void {
  const own: GaugeReads = { waiting: () => reads.waiting(), runs: () => reads.runs() };
  globalReads.add(own);
  // The gauges are there from now on, not from the first event recorded.
  everyInstruments();
  return () => globalReads.delete(own);
}

/**
 * Records Holdpoint's instruments on `meter` too (a Prometheus endpoint's own provider),
 * its gauges reading `reads`, until the returned function is called.
 */
export function recordOn(meter: Meter, reads: GaugeReads): () => void {
  const instruments = instrumentsOf(meter);
  observeEach(instruments, () => [reads]);
  onEndpoints.add(instruments);
  return () => onEndpoints.delete(instruments);
}

/**
 * What a stored commit tells the metrics (a store's commit observer): each approval it
 * settles (a denial, or the vote that reached the quorum) records its time to decision
 * once, since a commit is observed once, when stored; its `reminded` and `escalated`
 * audit lines count reminders and escalations, whoever wrote them; each run it moves
 * (started, paused, resumed, ended) and each recovery counts as a run event; a pause it
 * expires records how late that was.
 */
export function recordCommitMetrics(before: SessionSnapshot, writes: SessionWrites): void {
  const recorder = holdpointMetrics();
  const { app } = writes.meta;
  for (const line of writes.audit) {
    if (line.action === 'reminded') recorder.recordReminder(app, line.toolName ?? '');
    if (line.action === 'escalated') recorder.recordEscalation(app, line.toolName ?? '');
    if (line.action === 'recovered') recorder.recordRunEvent(app, 'recovered');
  }
  for (const run of writes.runs ?? []) {
    const event = runEventOf(before, run);
    if (event) recorder.recordRunEvent(run.app, event);
  }
  for (const pause of writes.pauses ?? []) {
    const was = before.pause?.pauseId === pause.pauseId ? before.pause : undefined;
    if (pause.status === 'expired' && was?.status === 'pending') {
      const late = Math.max(0, writes.meta.updatedAt - pause.expiresAt) / 1000;
      recorder.recordExpiryLag(pause.app, late);
    }
    for (const approval of pause.approvals) {
      const settled = settlingDecision(pause, approval);
      if (!settled || (was && settlingDecision(was, approval))) continue;
      const seconds = Math.max(0, settled.at - approval.createdAt) / 1000;
      recorder.recordDecision(pause.app, approval.toolName, settled.approved, seconds);
    }
  }
}

/** What a commit's write of `run` did to it, next to the run `before` held; none when nothing. */
function runEventOf(before: SessionSnapshot, run: RunRecord): RunMetricEvent | undefined {
  const was = before.run?.invocationId === run.invocationId ? before.run.status : undefined;
  if (was === run.status) return undefined;
  switch (run.status) {
    case 'running':
      return was === undefined ? 'started' : was === 'paused' ? 'resumed' : undefined;
    case 'interrupted':
      return undefined;
    default:
      return run.status;
  }
}
