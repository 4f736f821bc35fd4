import type { Clock } from '../core/clock.js';
import type { HoldpointStore } from '../store/store.js';
import {
  type GaugeReads,
  holdpointMetrics,
  readGaugesOnGlobal,
  recordCommitMetrics,
} from './metrics.js';
import { type PrometheusEndpoint, prometheusEndpoint } from './prometheus-endpoint.js';

/** A Holdpoint's metrics: its Prometheus endpoint when asked for; `close` stops them. */
export interface StoreMetrics {
  prometheus?: PrometheusEndpoint;
  close(): Promise<void>;
}

/**
 * Holdpoint's metrics from `store`: every stored commit records what it settled,
 * reminded and escalated (`recordCommitMetrics`), each read and commit its time and
 * outcome (`recordStoreRoundTrip`), the gauges read the store's counts (approvals
 * waiting, runs running and interrupted), on the global meter provider (a host's SDK) and, with `prometheus`, on an
 * endpoint of its own.
 */
export function storeMetrics(
  store: HoldpointStore,
  mode: 'off' | 'prometheus',
  clock: Clock,
): StoreMetrics {
  const reads: GaugeReads = {
    waiting: () => store.countWaiting(),
    runs: () => store.countRuns(clock.now()),
  };
  const stopObserving = store.observeCommits(recordCommitMetrics);
  const recorder = holdpointMetrics();
  const stopTiming = store.observeRoundTrips((roundTrip, seconds, failure) =>
    recorder.recordStoreRoundTrip(store.kind, roundTrip, seconds, failure),
  );
  const stopReading = readGaugesOnGlobal(reads);
  const prometheus = mode === 'prometheus' ? prometheusEndpoint(reads) : undefined;
  return {
    prometheus,
    close: async () => {
      stopObserving();
      stopTiming();
      stopReading();
      await prometheus?.close();
    },
  };
}
