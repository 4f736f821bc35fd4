import { presentOutcome } from '../present.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** `POST /api/agent/start`, `/resume` and `/cancel`: a run's life by its session. */
export const agentOperations = [
  defineOperation({
    name: 'startRun',
    method: 'post',
    path: '/api/agent/start',
    summary:
      "Starts a run for the caller's message, on a new session unless `session_id` names one; answers `completed` or `pending_approval`.",
    body: wire.startBody,
    countsAsRun: true,
    idempotent: 'start',
    act: ({ body, by, runtime, requestId }) =>
      runtime.operations.startRun(
        { query: body.query, app: body.app, sessionId: body.session_id, requestId },
        by,
      ),
    answer: wire.outcome,
    present: presentOutcome,
  }),
  defineOperation({
    name: 'resumeRun',
    method: 'post',
    path: '/api/agent/resume',
    summary:
      "Decides a session's pause (all at once, or per approval); resumes the same run once all are decided.",
    description:
      "Give `approved` (with `pause_id`, the pause decided on) or `decisions`, one per approval, not both. A decision approves, edits the call (`edited_args`), answers in the tool's place (`response`) or rejects with a reason (docs/decisions.md).",
    body: wire.resumeBody,
    countsAsRun: true,
    idempotent: 'resume',
    // The body is checked by the runtime's own decision fields: carried on as checked.
    act: ({ body, by, runtime, requestId }) =>
      runtime.checkedOperations.resumeRun(
        {
          requestId,
          sessionId: body.session_id,
          pauseId: body.pause_id,
          approved: body.approved,
          reason: body.reason,
          decisions: body.decisions?.map((d) => ({
            approvalId: d.approval_id,
            approved: d.approved,
            reason: d.reason,
            payload: d.payload,
            argsHash: d.args_hash,
            editedArgs: d.edited_args,
            response: d.response,
            grant: d.grant,
          })),
        },
        by,
      ),
    answer: wire.outcome,
    present: presentOutcome,
  }),
  defineOperation({
    name: 'cancelPause',
    method: 'post',
    path: '/api/agent/cancel',
    summary: "Cancels a session's pause: nothing pending runs, the run is recorded cancelled.",
    body: wire.cancelBody,
    act: ({ body, by, runtime }) =>
      runtime.operations.cancelPause({ sessionId: body.session_id, reason: body.reason }, by),
    answer: wire.cancelled,
    present: (pause) => ({
      status: 'cancelled' as const,
      session_id: pause.sessionId,
      invocation_id: pause.invocationId,
    }),
  }),
];
