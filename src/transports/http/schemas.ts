import { z } from 'zod';

const id = z.string().trim().min(1).max(200);
const userId = z.string().trim().min(1).max(200);
const reason = z.string().max(2000);

export const startBody = z.object({
  query: z.string().trim().min(1).max(10_000),
  user_id: userId,
  app: z.string().min(1).max(100).optional(),
  session_id: id.optional(),
});

export const decisionBody = z.object({
  approval_id: id,
  approved: z.boolean(),
  reason: reason.optional(),
  payload: z.unknown().optional(),
});

export const resumeBody = z
  .object({
    session_id: id,
    user_id: userId.optional(),
    approved: z.boolean().optional(),
    reason: reason.optional(),
    decisions: z.array(decisionBody).min(1).max(100).optional(),
  })
  .refine((b) => (b.approved === undefined) !== (b.decisions === undefined), {
    message: 'give exactly one of "approved" or "decisions"',
  });

export const cancelBody = z.object({
  session_id: id,
  user_id: userId.optional(),
  reason: reason.optional(),
});

export const approvalsQuery = z.object({ user_id: userId.optional() });
export const auditQuery = z.object({ session_id: id });

export const approvalDecisionBody = z.object({
  approved: z.boolean(),
  reason: reason.optional(),
  payload: z.unknown().optional(),
  user_id: userId.optional(),
});
