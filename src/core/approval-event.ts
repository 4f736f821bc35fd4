import { z } from 'zod';

/** What happens to an approval that people are told about, in the order it can happen. */
export const APPROVAL_EVENT_TYPES = [
  'requested',
  'reminded',
  'escalated',
  'delegated',
  'decided',
  'expired',
  'cancelled',
] as const;

export type ApprovalEventType = (typeof APPROVAL_EVENT_TYPES)[number];

/** Whether an audit line's action is one people are told about (when it names an approval). */
export function isApprovalEventType(action: string): action is ApprovalEventType {
  return (APPROVAL_EVENT_TYPES as readonly string[]).includes(action);
}

/**
 * One event of one approval, as every channel renders it and a webhook receives it
 * (`event` in its body). `id` is the hash of the audit line that recorded it, so the
 * event and its line are one fact. Version 1; a field added later is optional.
 */
export const approvalEvent = z.object({
  v: z.literal(1),
  id: z.string(),
  type: z.enum(APPROVAL_EVENT_TYPES),
  at: z.iso.datetime(),
  app: z.string(),
  session_id: z.string(),
  invocation_id: z.string(),
  pause_id: z.string(),
  /** Who made it happen: a person's id, or `system` (reminders, escalations, expiry). */
  actor: z.string(),
  /**
   * Whose session it is (its owner, who decides when `approvers.owner` says so). Absent
   * from events planned before it was added.
   */
  user_id: z.string().optional(),
  approval: z.object({
    approval_id: z.string(),
    kind: z.enum(['confirmation', 'input']),
    tool_name: z.string(),
    args: z.record(z.string(), z.unknown()),
    args_hash: z.string(),
    hint: z.string(),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    approvers: z.object({
      owner: z.boolean(),
      roles: z.array(z.string()),
      users: z.array(z.string()),
      quorum: z.number(),
      requester_may_approve: z.boolean(),
    }),
    status: z.enum(['pending', 'approved', 'denied', 'expired', 'cancelled']),
  }),
  decision: z
    .object({
      approved: z.boolean(),
      reason: z.string().optional(),
      decided_by: z.string(),
      on_behalf_of: z.string().optional(),
      channel: z.string().optional(),
    })
    .optional(),
  reminder: z.object({ count: z.number() }).optional(),
  escalation: z.object({ level: z.number(), to: z.array(z.string()) }).optional(),
  delegation: z.object({ from: z.string(), to: z.array(z.string()) }).optional(),
});

export type ApprovalEvent = z.output<typeof approvalEvent>;
