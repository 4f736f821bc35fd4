import { z } from 'zod';
import { LIMITS } from '../core/limits.js';
import { appName, boundedJson, idText, messageText, reasonText } from '../core/validate.js';

/** A user's message that starts a run, on a new session unless `sessionId` is given. */
export const startRequest = z.strictObject({
  query: messageText,
  app: appName.optional(),
  sessionId: idText.optional(),
  /** Names the request across its retries (see idempotentRequest): the run's ids follow from it. */
  requestId: idText.optional(),
});
export type StartRequest = z.input<typeof startRequest>;

/** One person's answer, as a transport hands it over. */
export const decisionInput = z.strictObject({
  approvalId: idText,
  approved: z.boolean(),
  reason: reasonText.optional(),
  payload: boundedJson.optional(),
  /** The arguments' hash the person saw (`sha256:…`); ARGS_MISMATCH when they differ. */
  argsHash: z.string().max(100).optional(),
  /** Where the decision came from, when not the API (`slack`, `link`, a host's channel). */
  channel: idText.optional(),
});
export type DecisionInput = z.input<typeof decisionInput>;

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
