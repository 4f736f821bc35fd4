import { z } from 'zod';
import { LIMITS } from '../../../core/limits.js';
import { appName, idText, messageText, reasonText } from '../../../core/validate.js';
import { DECISION_FIELDS } from '../../../runtime/requests.js';

// The REST API's request bodies and queries (snake_case), as its routes validate them.
// Every body and query is strict: a field the API does not know is a 400, never
// silently dropped (a misspelt `aproved` must not read as "no decision").

export const startBody = z.strictObject({
  query: messageText,
  user_id: idText.optional(),
  app: appName.optional(),
  session_id: idText.optional(),
});

/**
 * A decision's fields in snake_case, each the runtime's own (`DECISION_FIELDS`: one
 * declaration of every limit): yes or no, why, a payload, the arguments' hash seen, and
 * what it may carry beyond yes or no — the call's arguments changed (`edited_args`), an
 * answer in the tool's place (`response`), a grant for later calls.
 */
const decisionFields = {
  approved: DECISION_FIELDS.approved,
  reason: DECISION_FIELDS.reason,
  payload: DECISION_FIELDS.payload,
  args_hash: DECISION_FIELDS.argsHash,
  edited_args: DECISION_FIELDS.editedArgs,
  response: DECISION_FIELDS.response,
  grant: DECISION_FIELDS.grant,
};

export const decisionBody = z.strictObject({ approval_id: idText, ...decisionFields });

export const resumeBody = z
  .strictObject({
    session_id: idText,
    user_id: idText.optional(),
    /**
     * The pause decided on (PAUSE_MISMATCH when the session waits on another). Without
     * it, `approved` decides the session's current pause, as seed 000's API did; the
     * audit log marks such decisions (`unnamed_pause`).
     */
    pause_id: idText.optional(),
    approved: z.boolean().optional(),
    reason: reasonText.optional(),
    decisions: z.array(decisionBody).min(1).max(LIMITS.decisions).optional(),
  })
  .refine((b) => (b.approved === undefined) !== (b.decisions === undefined), {
    message: 'give exactly one of "approved" or "decisions"',
  });

/** `POST /api/approvals/:approvalId/reassign`: who it goes to, and why. */
export const reassignBody = z.strictObject({
  to: idText,
  reason: reasonText.optional(),
});

/** An ISO 8601 time as people write it: in UTC (`Z`) or with their offset (`+09:00`). */
const isoTimeWithOffset = z.iso.datetime({ offset: true });

/** `PUT /api/delegations/:userId`: the delegate, and when (ISO times; `from` default now). */
export const delegationBody = z.strictObject({
  delegate: idText,
  from: isoTimeWithOffset.optional(),
  until: isoTimeWithOffset,
  reason: reasonText.optional(),
});

export const cancelBody = z.strictObject({
  session_id: idText,
  user_id: idText.optional(),
  reason: reasonText.optional(),
});

const pageLimit = z.coerce.number().int().min(1).max(LIMITS.pageSize);
const cursor = z.string().min(1).max(1000);

export const approvalsQuery = z.strictObject({
  user_id: idText.optional(),
  limit: pageLimit.optional(),
  cursor: cursor.optional(),
});

export const sessionsQuery = z.strictObject({
  user_id: idText.optional(),
  limit: pageLimit.optional(),
  cursor: cursor.optional(),
});

export const auditQuery = z
  .strictObject({
    session_id: idText,
    limit: pageLimit.optional(),
    cursor: cursor.optional(),
    format: z.enum(['json', 'ndjson']).optional(),
  })
  .refine((q) => q.format !== 'ndjson' || (q.limit === undefined && q.cursor === undefined), {
    message: 'format=ndjson exports the whole log: it takes no limit or cursor',
    path: ['format'],
  });

export const approvalDecisionBody = z.strictObject({
  ...decisionFields,
  user_id: idText.optional(),
});

/** `GET /api/grants`: the grants of a user (default: the caller), in force or not. */
export const grantsQuery = z.strictObject({
  user_id: idText.optional(),
  limit: pageLimit.optional(),
  cursor: cursor.optional(),
});

export const runsQuery = z.strictObject({
  status: z.literal('interrupted'),
  limit: pageLimit.optional(),
  cursor: cursor.optional(),
});

export const recoverBody = z.strictObject({
  user_id: idText.optional(),
});

export const cancelRunBody = z.strictObject({
  user_id: idText.optional(),
  reason: reasonText.optional(),
});
