import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { SessionSpanProcessor } from '../telemetry/session-attributes.js';

/** What `startTracing` set up: where spans go, and how to flush and stop it. */
export interface Tracing {
  /** The OTLP endpoint spans are sent to, or undefined when tracing is off. */
  endpoint?: string;
  shutdown(): Promise<void>;
}

const OFF: Tracing = { shutdown: () => Promise.resolve() };

/**
 * Sends the process's spans (HTTP requests, runs, ADK's agent, model and tool calls,
 * each with `session.id`) over OTLP/HTTP when the standard variables ask for it:
 * `OTEL_TRACES_EXPORTER=otlp`, or an `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`. Off by
 * default, and with `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. The
 * exporter reads the other `OTEL_EXPORTER_OTLP_*` settings (headers, timeout) itself;
 * `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` name the service (default `holdpoint`).
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing {
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim());
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const wanted = exporters.includes('otlp') || (endpoint !== undefined && endpoint !== '');
  if (env.OTEL_SDK_DISABLED === 'true' || exporters.includes('none') || !wanted) return OFF;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'holdpoint' }).merge(
      detectResources({ detectors: [envDetector] }),
    ),
    spanProcessors: [new SessionSpanProcessor(), new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return {
    endpoint: endpoint || 'http://localhost:4318/v1/traces',
    shutdown: () => provider.shutdown(),
  };
}
