import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { INVOCATION_ID, inRun, SESSION_ID, tagSession } from './session-attributes.js';

const tracer = trace.getTracer('holdpoint');

/**
 * Runs `work` (one run segment) in a span `run <app>` that is the parent of everything
 * the segment does, each span carrying the session and invocation ids. The request that
 * caused it (an HTTP span, if any) learns the session id too: a first message has none
 * until the server made it.
 */
export function inRunSpan<T extends { status: string }>(
  run: { app: string; sessionId: string; invocationId: string },
  work: () => Promise<T>,
): Promise<T> {
  tagSession(run.sessionId);
  const parent = inRun(context.active(), run.sessionId, run.invocationId);
  const attributes = {
    [SESSION_ID]: run.sessionId,
    [INVOCATION_ID]: run.invocationId,
    'holdpoint.app': run.app,
  };
  return tracer.startActiveSpan(`run ${run.app}`, { attributes }, parent, async (span) => {
    try {
      const outcome = await work();
      span.setAttribute('holdpoint.run.status', outcome.status);
      return outcome;
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
