import { z } from 'zod';
import { approvalNotFound } from '../../../core/errors.js';
import { idText, validate } from '../../../core/validate.js';
import { inboxEvents } from '../inbox-events.js';
import {
  presentApprovalLookup,
  presentOutcome,
  presentPendingApproval,
  presentReassigned,
} from '../present.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** `/api/approvals`: the inbox, one approval, a decision by approval id, and handing one to someone. */
export const approvalOperations = [
  defineOperation({
    name: 'listApprovals',
    method: 'get',
    path: '/api/approvals',
    summary: 'Pending approvals the caller may decide, across sessions, a page at a time.',
    query: wire.approvalsQuery,
    act: ({ query, by, runtime }) =>
      runtime.operations.listApprovals(
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
    name: 'approvalEvents',
    method: 'get',
    path: '/api/approvals/events',
    summary:
      "The caller's inbox by push (SSE): an `inbox` event with their pending count on connect and after each change.",
    act: ({ by, runtime, logger }) => inboxEvents(runtime, by, logger),
    // No JSON answer: `act` always answers with the stream.
    answer: z.never(),
    present: (never: never) => never,
    alsoAnswers: {
      contentType: 'text/event-stream',
      description:
        'Server-Sent Events: `event: inbox` with `{pending, more, approvals: [{approval_id, tool_name, session_id, app}]}`, and a `: beat` comment every 15 s (see docs/http-api.md).',
    },
  }),
  defineOperation({
    name: 'getApproval',
    method: 'get',
    path: '/api/approvals/:approvalId',
    summary:
      'One approval as of now: its call, who may decide it and whether the caller may, and its pause with the decisions recorded on it.',
    description:
      'For those who may read its session (its owner, an admin, those it asks to decide, their delegates). `404 APPROVAL_NOT_FOUND` when no session holds it, or its session has moved on to a later pause.',
    act: async ({ params, by, runtime }) => {
      const approvalId = params.approvalId ?? '';
      const found = await runtime.operations.getApproval(approvalId, by);
      if (!found) throw approvalNotFound(approvalId);
      return found;
    },
    answer: wire.approvalView,
    present: presentApprovalLookup,
  }),
  defineOperation({
    name: 'decideApproval',
    method: 'post',
    path: '/api/approvals/:approvalId',
    summary:
      'Decides one approval by its id, from any client on any instance; resumes the run when it completes the pause.',
    body: wire.approvalDecisionBody,
    countsAsRun: true,
    idempotent: 'decide',
    // The body is checked by the runtime's own decision fields: only the path's id is left.
    act: ({ params, body, by, runtime, requestId }) =>
      runtime.checkedOperations.decideApproval(
        {
          approvalId: validate(idText, params.approvalId),
          approved: body.approved,
          reason: body.reason,
          payload: body.payload,
          argsHash: body.args_hash,
          editedArgs: body.edited_args,
          response: body.response,
          grant: body.grant,
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
    description:
      'Audited `delegated`; nothing is written when the approval already names `to`. `403` with `reason: "requester"` when `to` asked for the call and the policy keeps them from approving it.',
    body: wire.reassignBody,
    act: ({ params, body, by, runtime }) =>
      runtime.operations.reassignApproval(
        { approvalId: params.approvalId ?? '', to: body.to, reason: body.reason },
        by,
      ),
    answer: wire.reassignedApproval,
    present: presentReassigned,
  }),
];
