import {
  type Attributes,
  type Context,
  createContextKey,
  type Span,
  trace,
} from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** The attribute every span of a session carries: collect a session's traces by it. */
export const SESSION_ID = 'session.id';
/** The attribute every span of a run carries: Holdpoint's invocation id, one per run. */
export const INVOCATION_ID = 'holdpoint.invocation_id';

const RUN_ATTRIBUTES = createContextKey('holdpoint run attributes');

/**
 * `parent` carrying the session and run a span started in it belongs to: spans started
 * in it (Holdpoint's, ADK's agent, model and tool spans, your tools' own) get both
 * attributes from `SessionSpanProcessor`.
 */
export function inRun(parent: Context, sessionId: string, invocationId: string): Context {
  const attributes: Attributes = { [SESSION_ID]: sessionId, [INVOCATION_ID]: invocationId };
  return parent.setValue(RUN_ATTRIBUTES, attributes);
}

/** Tags the span active now (the request being served) with the session it is about. */
export function tagSession(sessionId: string): void {
  trace.getActiveSpan()?.setAttribute(SESSION_ID, sessionId);
}

/** The session and run attributes of `context`, if a run's work started it. */
export function runAttributes(context: Context): Attributes | undefined {
  return context.getValue(RUN_ATTRIBUTES) as Attributes | undefined;
}

/**
 * Stamps `session.id` and `holdpoint.invocation_id` on every span started inside a
 * run, whoever's tracer started it. Holdpoint's telemetry setup adds it; a host with
 * its own tracer provider adds it there (`spanProcessors: [new SessionSpanProcessor(), …]`).
 */
export class SessionSpanProcessor implements SpanProcessor {
  onStart(span: Span, parentContext: Context): void {
    const attributes = runAttributes(parentContext);
    if (attributes) span.setAttributes(attributes);
  }

  onEnd(_span: ReadableSpan): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
