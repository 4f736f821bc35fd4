import { z } from 'zod';
import { agUiStream } from '../../ag-ui/agent-run.js';
import { runAgentInput } from '../../ag-ui/run-input.js';
import { defineOperation } from './operation.js';
import { pathApp } from './path-app.js';

/** `POST /api/ag-ui/:app`: an app as an AG-UI agent (one endpoint per app). */
export const agUiOperations = [
  defineOperation({
    name: 'runAgUi',
    method: 'post',
    path: '/api/ag-ui/:app',
    summary:
      "Runs the app as an AG-UI agent (the body is AG-UI's RunAgentInput; the thread is a session of that id): its events over SSE, a pause as RUN_FINISHED's `interrupt` outcome, answered by the next run's `resume`.",
    description:
      "A resume entry answers one interrupt (an approval, by id) as the caller, whom the tool's policy must allow; `cancelled` rejects it. A thread that waits is told its interrupts again, never run twice. Errors after the stream opened are RUN_ERROR events with the stable code (docs/ag-ui.md).",
    body: runAgentInput,
    countsAsRun: true,
    act: async ({ params, body, by, runtime, logger }) => {
      const app = pathApp(runtime, params).name;
      return new Response(agUiStream({ runtime, app, input: body, caller: by, logger }), {
        headers: {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
        },
      });
    },
    // No JSON answer: `act` always answers with the stream.
    answer: z.never(),
    present: (never: never) => never,
    alsoAnswers: {
      contentType: 'text/event-stream',
      description: 'AG-UI events, one per `data:` line (see docs/ag-ui.md).',
    },
  }),
];
