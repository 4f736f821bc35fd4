import { createHash } from 'node:crypto';
import { type AGUIEvent, EventType, PROTOCOL_VERSION } from '@ag-ui/core';
import type { Logger } from 'pino';
import { HoldpointError, isHoldpointError, sessionNotFound } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest } from '../../core/types.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { SessionView } from '../../runtime/queries/session-view.js';
import type { RunEventSink } from '../../runtime/run-event.js';
import { AgUiEventMapper, type RunEnd } from './event-mapper.js';
import { AG_UI_CHANNEL, decisionsOf } from './interrupts.js';
import { newQuestion, type RunAgentInput } from './run-input.js';

/** One AG-UI run request: an app's endpoint, the client's input, who sends it. */
export interface AgUiRequest {
  runtime: HoldpointRuntime;
  app: string;
  input: RunAgentInput;
  caller: Principal;
  logger: Logger;
}

/**
 * Names the request across its retries: the same run posted again (its stream was
 * lost) finds the run it started, or the decisions it recorded, instead of acting twice.
 */
function requestIdOf({ threadId, runId }: RunAgentInput): string {
  const digest = createHash('sha256').update(`${threadId}\n${runId}`).digest('hex');
  return `ag-ui-${digest.slice(0, 40)}`;
}

/**
 * The thread's session as `caller` sees it: `undefined` when the thread is new, and
 * FORBIDDEN's error when they may not read it (a decider may read a session only while
 * it asks them something).
 */
async function threadSession(
  request: AgUiRequest,
): Promise<SessionView | HoldpointError | undefined> {
  const { runtime, input, caller } = request;
  try {
    return await runtime.operations.getSession(input.threadId, caller);
  } catch (error) {
    if (!isHoldpointError(error)) throw error;
    if (error.code === 'SESSION_NOT_FOUND') return undefined;
    if (error.code === 'FORBIDDEN') return error;
    throw error;
  }
}

const waiting = (approvals: ApprovalRequest[]): RunEnd => ({
  status: 'pending_approval',
  approvals,
});

/**
 * What the request asks, done: resume entries decide the thread's pending approvals
 * (resuming its run once all are decided); a thread that waits is told its interrupts
 * again (a client reconnecting never starts a second run); a new user message starts a
 * run on the thread (its first creates the session, of the thread's id). The run's
 * events go to `emit`; answers how the run stands at the end.
 */
async function act(request: AgUiRequest, emit: RunEventSink): Promise<RunEnd> {
  const { runtime, app, input, caller } = request;
  const thread = await threadSession(request);
  const view = thread instanceof HoldpointError ? undefined : thread;
  if (view && view.meta.app !== app) {
    throw new HoldpointError(
      'APP_MISMATCH',
      `Thread ${input.threadId} belongs to app ${view.meta.app}, not ${app}.`,
    );
  }
  const requestId = requestIdOf(input);
  if (input.resume) {
    if (thread === undefined) throw sessionNotFound(input.threadId);
    // Someone who may not read the thread is asked nothing there now: their answers go to
    // the runtime all the same, which says why they cannot count (ALREADY_DECIDED, …).
    const pending = new Set(view?.pendingApprovals.map((a) => a.approvalId));
    const decisions = decisionsOf(input.resume, pending);
    if (decisions.length === 0) {
      return view?.meta.status === 'paused' ? waiting(view.pendingApprovals) : { status: 'idle' };
    }
    return runtime.checkedOperations.resumeRun(
      { sessionId: input.threadId, decisions, requestId, channel: AG_UI_CHANNEL },
      caller,
      emit,
    );
  }
  if (thread instanceof HoldpointError) throw thread;
  if (view?.meta.status === 'paused') return waiting(view.pendingApprovals);
  const question = newQuestion(input)?.trim();
  if (!question) {
    if (view) return { status: 'idle' };
    throw new HoldpointError(
      'VALIDATION_FAILED',
      'A new thread starts with a user message: the last of `messages` must be one, with text.',
      { field: 'messages' },
    );
  }
  return runtime.operations.startRun(
    {
      query: question,
      app,
      ...(view ? { sessionId: view.meta.sessionId } : { newSessionId: input.threadId }),
      requestId,
    },
    caller,
    emit,
  );
}

/** The thread's state after the run, for a caller who may still read the session. */
async function stateAfter(request: AgUiRequest): Promise<AGUIEvent[]> {
  try {
    const view = await request.runtime.operations.getSession(
      request.input.threadId,
      request.caller,
    );
    return [{ type: EventType.STATE_SNAPSHOT, snapshot: view.state }];
  } catch (error) {
    // A decider may read the session only while it asks them something.
    if (isHoldpointError(error) && error.code === 'FORBIDDEN') return [];
    throw error;
  }
}

/**
 * One AG-UI run as a server-sent event stream: RUN_STARTED, the run's messages and tool
 * calls, the thread's state, then RUN_FINISHED (`success`, or `interrupt` with the
 * approvals pending) — or RUN_ERROR with the error's stable code (FORBIDDEN for a
 * decider the policy refuses, ALREADY_DECIDED for an approval another door decided
 * first, …).
 */
export function agUiStream(request: AgUiRequest): ReadableStream<Uint8Array> {
  const { threadId, runId } = request.input;
  const mapper = new AgUiEventMapper(
    { threadId, runId },
    request.input.resume?.map((entry) => entry.interruptId) ?? [],
  );
  const encoder = new TextEncoder();
  let open = true;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (events: AGUIEvent[]) => {
        if (!open) return;
        for (const event of events) {
          controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`));
        }
      };
      send([{ type: EventType.RUN_STARTED, threadId, runId, protocolVersion: PROTOCOL_VERSION }]);
      try {
        const end = await act(request, (event) => send(mapper.map(event)));
        if (!mapper.over) send([...(await stateAfter(request)), ...mapper.finished(end)]);
      } catch (error) {
        // A run that reported its failure streamed its RUN_ERROR already: no second.
        send(errorEvents(request, mapper, error));
      }
      if (open) controller.close();
    },
    cancel() {
      // The client left; the run goes on, durably, without it.
      open = false;
    },
  });
}

function errorEvents(request: AgUiRequest, mapper: AgUiEventMapper, error: unknown): AGUIEvent[] {
  if (isHoldpointError(error)) return mapper.error(error.code, error.message);
  request.logger.error({ err: error }, 'AG-UI run failed');
  return mapper.error('INTERNAL', 'Internal error.');
}
