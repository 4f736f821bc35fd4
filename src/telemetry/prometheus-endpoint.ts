import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { type GaugeReads, METER_NAME, recordOn } from './metrics.js';

/** The content type of Prometheus' text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Holdpoint's metrics for a Prometheus scrape; `close` stops recording them. */
export interface PrometheusEndpoint {
  /** The metrics now, in Prometheus text format. */
  scrape(): Promise<string>;
  close(): Promise<void>;
}

/**
 * `text` without the serializer's `# UNIT` lines: they are OpenMetrics', not the Prometheus
 * text format this endpoint says it serves (the unit is in each name instead).
 */
function withoutUnitLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.startsWith('# UNIT '))
    .join('\n');
}

/**
 * A MeterProvider of Holdpoint's own, read by Prometheus scrapes (`/metrics` on the
 * server's port): the exporter's own server is never started. It is not set globally,
 * so a host's OpenTelemetry SDK keeps its provider; Holdpoint records on both. The
 * gauges read `reads` (the store's counts) at each scrape.
 */
export function prometheusEndpoint(reads: GaugeReads): PrometheusEndpoint {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': 'holdpoint' }).merge(
      detectResources({ detectors: [envDetector] }),
    ),
    readers: [exporter],
    // Prometheus names carry their unit: seconds, as its conventions ask.
    views: [
      {
        instrumentName: 'holdpoint.approval.decision.duration',
        name: 'holdpoint.approval.decision.duration.seconds',
      },
      {
        instrumentName: 'holdpoint.http.request.duration',
        name: 'holdpoint.http.request.duration.seconds',
      },
      {
        instrumentName: 'holdpoint.store.round_trip.duration',
        name: 'holdpoint.store.round_trip.duration.seconds',
      },
      { instrumentName: 'holdpoint.pause.expiry.lag', name: 'holdpoint.pause.expiry.lag.seconds' },
    ],
  });
  const stopRecording = recordOn(provider.getMeter(METER_NAME), reads);
  const serializer = new PrometheusSerializer('', false);
  return {
    scrape: async () =>
      withoutUnitLines(serializer.serialize((await exporter.collect()).resourceMetrics)),
    close: async () => {
      stopRecording();
      await provider.shutdown();
    },
  };
}
