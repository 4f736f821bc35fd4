import { presentOutcome, presentRun } from '../present.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** `/api/runs`: runs by invocation id; interrupted ones resumed or given up. */
export const runOperations = [
  defineOperation({
    name: 'listRuns',
    method: 'get',
    path: '/api/runs',
    summary: 'Interrupted runs, a page at a time (admins).',
    query: wire.runsQuery,
    act: ({ query, by, runtime }) => runtime.operations.listRuns(query, by),
    answer: wire.runsPage,
    present: (page) => ({
      runs: page.runs.map(presentRun),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    }),
  }),
  defineOperation({
    name: 'getRun',
    method: 'get',
    path: '/api/runs/:invocationId',
    summary: 'A run by its invocation id; `interrupted` when its process stopped mid-run.',
    act: ({ params, by, runtime }) => runtime.operations.getRun(params.invocationId ?? '', by),
    answer: wire.run,
    present: presentRun,
  }),
  defineOperation({
    name: 'recoverRun',
    method: 'post',
    path: '/api/runs/:invocationId/resume',
    summary: 'Resumes an interrupted run from what was stored last.',
    body: wire.recoverBody,
    optionalBody: true,
    countsAsRun: true,
    idempotent: 'recover',
    act: ({ params, by, runtime }) =>
      runtime.operations.recoverRun({ invocationId: params.invocationId ?? '' }, by),
    answer: wire.outcome,
    present: presentOutcome,
  }),
  defineOperation({
    name: 'cancelRun',
    method: 'post',
    path: '/api/runs/:invocationId/cancel',
    summary: 'Gives up an interrupted run: recorded cancelled, its session free again.',
    body: wire.cancelRunBody,
    optionalBody: true,
    act: ({ params, body, by, runtime }) =>
      runtime.operations.cancelRun(
        { invocationId: params.invocationId ?? '', reason: body.reason },
        by,
      ),
    answer: wire.run,
    present: presentRun,
  }),
];
