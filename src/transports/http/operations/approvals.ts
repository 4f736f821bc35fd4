import { presentOutcome, presentPendingApproval, presentReassigned } from '../present.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** `/api/approvals`: the inbox, a decision by approval id, and handing one to someone. */
export const approvalOperations = [
  defineOperation({
    name: 'listApprovals',
    method: 'get',
    path: '/api/approvals',
    summary: 'Pending approvals the caller may decide, across sessions, a page at a time.',
    query: wire.approvalsQuery,
    act: ({ query, by, runtime }) =>
      runtime.listPendingApprovals(
        { userId: query.user_id, limit: query.limit, cursor: query.cursor },
        by,
      ),
    answer: wire.approvalsPage,
    present: (page) => ({
      approvals: page.approvals.map(presentPendingApproval),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    }),
  }),
  defineOperation({
    name: 'decideApproval',
    method: 'post',
    path: '/api/approvals/:approvalId',
    summary: 'Decides one approval by its id; resumes the run when it completes the pause.',
    body: wire.approvalDecisionBody,
    countsAsRun: true,
    idempotent: 'decide',
    act: ({ params, body, by, runtime, requestId }) =>
      runtime.decideApproval(
        {
          approvalId: params.approvalId ?? '',
          approved: body.approved,
          reason: body.reason,
          payload: body.payload,
          argsHash: body.args_hash,
        },
        by,
        undefined,
        requestId,
      ),
    answer: wire.outcome,
    present: presentOutcome,
  }),
  defineOperation({
    name: 'reassignApproval',
    method: 'post',
    path: '/api/approvals/:approvalId/reassign',
    summary:
      'Hands a pending approval to a named person, who may then decide it (its policy still holds); for those who may decide it.',
    body: wire.reassignBody,
    act: ({ params, body, by, runtime }) =>
      runtime.reassignApproval(
        { approvalId: params.approvalId ?? '', to: body.to, reason: body.reason },
        by,
      ),
    answer: wire.reassignedApproval,
    present: presentReassigned,
  }),
];
