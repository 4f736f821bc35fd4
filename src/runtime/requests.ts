import { z } from 'zod';
import { jsonBoundsProblem, LIMITS } from '../core/limits.js';
import { appName, boundedJson, idText, messageText, reasonText } from '../core/validate.js';

/** A user's message that starts a run, on a new session unless `sessionId` is given. */
export const startRequest = z
  .strictObject({
    query: messageText,
    app: appName.optional(),
    sessionId: idText.optional(),
    /**
     * The id the new session takes (a protocol's own thread id, as AG-UI's `threadId`):
     * SESSION_EXISTS when it is taken. Not with `sessionId`.
     */
    newSessionId: idText.optional(),
    /** Names the request across its retries (see idempotentRequest): the run's ids follow from it. */
    requestId: idText.optional(),
  })
  .refine((r) => r.sessionId === undefined || r.newSessionId === undefined, {
    message: 'give at most one of "sessionId" or "newSessionId"',
  });
export type StartRequest = z.input<typeof startRequest>;

/** A condition on one argument of the calls a grant covers (see core/grants.ts). */
const argCondition = z.union([
  z.string().max(LIMITS.textChars),
  z.number().finite(),
  z.boolean(),
  z.null(),
  z
    .strictObject({
      lt: z.number().finite().optional(),
      lte: z.number().finite().optional(),
      gt: z.number().finite().optional(),
      gte: z.number().finite().optional(),
    })
    .refine((c) => Object.keys(c).length > 0, { message: 'give at least one bound' }),
  z.strictObject({
    in: z
      .array(
        z.union([z.string().max(LIMITS.textChars), z.number().finite(), z.boolean(), z.null()]),
      )
      .min(1)
      .max(100),
  }),
]);

/** A grant asked for with an approval: this tool, for a while, without asking (GrantRequest). */
export const grantInput = z.strictObject({
  scope: z.enum(['session', 'user']),
  /** At most the tool's policy's `maxHours`; at most a year in any case. */
  hours: z
    .number()
    .positive()
    .max(365 * 24),
  match: z
    .record(z.string().min(1).max(200), argCondition)
    .superRefine((value, ctx) => {
      // Stored with the decision and the grant: within the payload bounds.
      const problem = jsonBoundsProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: `the match ${problem}` });
    })
    .optional(),
});

/**
 * The fields of one person's answer, each declared once with its limits: the runtime's
 * `decisionInput` and the REST API's decision bodies (in snake_case) are made of them.
 */
export const DECISION_FIELDS = {
  approved: z.boolean(),
  reason: reasonText.optional(),
  payload: boundedJson.optional(),
  /** The arguments' hash the person saw (`sha256:…`); ARGS_MISMATCH when they differ. */
  argsHash: z.string().max(100).optional(),
  /** Approve the call with these arguments instead (an editable confirmation; needs `argsHash`). */
  editedArgs: z
    .record(z.string().max(200), z.unknown())
    .superRefine((value, ctx) => {
      // Within the payload bounds, as every value a person sends.
      const problem = jsonBoundsProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: `the arguments ${problem}` });
    })
    .optional(),
  /** Answer in the tool's place (`approved: true`): the tool does not run. */
  response: boundedJson.optional(),
  /** With an approval: allow later calls of this tool for a while (needs `argsHash`). */
  grant: grantInput.optional(),
};

/** One person's answer, as a transport hands it over. */
export const decisionInput = z.strictObject({
  approvalId: idText,
  ...DECISION_FIELDS,
  /** Where the decision came from, when not the API (`slack`, `link`, a host's channel). */
  channel: idText.optional(),
});
export type DecisionInput = z.input<typeof decisionInput>;
/** A decision as `decisionInput` checked it: what the runtime carries from its edge on. */
export type CheckedDecisionInput = z.output<typeof decisionInput>;

/** Decisions on a session's pause: one answer for all, or one per approval. */
export const resumeRequest = z
  .strictObject({
    sessionId: idText,
    /** The pause decided on: PAUSE_MISMATCH when the session waits on another. */
    pauseId: idText.optional(),
    /** Decides every undecided approval of the pause the same way. */
    approved: z.boolean().optional(),
    reason: reasonText.optional(),
    decisions: z.array(decisionInput).min(1).max(LIMITS.decisions).optional(),
    /** Names the request across its retries: its decisions carry it (Decision.requestId). */
    requestId: idText.optional(),
    /** Where the decisions came from, when not the API (`slack`, `link`, a host's channel). */
    channel: idText.optional(),
  })
  .refine((r) => (r.approved === undefined) !== (r.decisions === undefined), {
    message: 'give exactly one of "approved" or "decisions"',
  });
/** Decisions on a pause as `resumeRequest` checked them. */
export type CheckedResumeRequest = z.output<typeof resumeRequest>;
export type ResumeRequest = z.input<typeof resumeRequest>;

/** An interrupted run to resume, by its invocation id. */
export const recoverRequest = z.strictObject({
  invocationId: idText,
});
export type RecoverRequest = z.input<typeof recoverRequest>;

/** An interrupted run to give up, by its invocation id, and why. */
export const cancelRunRequest = z.strictObject({
  invocationId: idText,
  reason: reasonText.optional(),
});
export type CancelRunRequest = z.input<typeof cancelRunRequest>;

/** An approval handed to a named person, who may then decide it too. */
export const reassignRequest = z.strictObject({
  approvalId: idText,
  /** The user id of the person it goes to. */
  to: idText,
  reason: reasonText.optional(),
});
export type ReassignRequest = z.input<typeof reassignRequest>;

/** The longest out-of-office delegation, from now: a year. */
const MAX_DELEGATION_MS = 365 * 24 * 3600 * 1000;

/** A delegation's fields: the delegate, from `from` (default: now) until `until` (ms), why. */
const delegationFields = {
  delegate: idText,
  from: z.number().int().nonnegative().optional(),
  until: z.number().int().positive(),
  reason: reasonText.optional(),
};

/** A delegation ends after it starts. */
function untilAfterFrom(d: { from?: number; until: number }): boolean {
  return d.from === undefined || d.from < d.until;
}
const endsBeforeItStarts = { message: '"until" must come after "from"', path: ['until'] };

/** A person's approvals left to a delegate from `from` (default: now) until `until` (ms). */
export const delegationRequest = z
  .strictObject(delegationFields)
  .refine(untilAfterFrom, endsBeforeItStarts);
export type DelegationRequest = z.input<typeof delegationRequest>;

/** A delegation for the person `userId`. */
export const setDelegationRequest = z
  .strictObject({ userId: idText, ...delegationFields })
  .refine(untilAfterFrom, endsBeforeItStarts);
export type SetDelegationRequest = z.input<typeof setDelegationRequest>;

/** The input of an operation that needs nothing but who asks (`{}`). */
export const noInput = z.strictObject({});
export type NoInput = z.input<typeof noInput>;

/** Whether a delegation ending at `until` ends within a year of `now`. */
export function delegationEndsInTime(until: number, now: number): boolean {
  return until > now && until - now <= MAX_DELEGATION_MS;
}
