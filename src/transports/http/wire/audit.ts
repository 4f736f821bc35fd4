import { z } from 'zod';
import { AUDIT_ACTIONS } from '../../../core/types.js';
import { isoTime, page } from './common.js';

/**
 * An audit line as the API shows and exports it (and as its hash covers it, see
 * core/audit-line.ts): absent fields left out.
 */
export const auditLine = z.object({
  at: isoTime,
  action: z.enum(AUDIT_ACTIONS),
  session_id: z.string(),
  invocation_id: z.string(),
  actor: z.string(),
  approval_id: z.string().optional(),
  tool_name: z.string().optional(),
  args_hash: z.string().optional(),
  payload_hash: z.string().optional(),
  approved: z.boolean().optional(),
  reason: z.string().optional(),
  unnamed_pause: z.literal(true).optional(),
  channel: z.string().optional(),
  on_behalf_of: z.string().optional(),
  to: z.array(z.string()).optional(),
  edited_args_hash: z.string().optional(),
  response_hash: z.string().optional(),
  grant_id: z.string().optional(),
  grant_scope: z.enum(['session', 'user']).optional(),
  grant_until: isoTime.optional(),
  prev_hash: z.string().optional(),
  hash: z.string().optional(),
});

/** A page of a session's audit log (`GET /api/audit`), oldest first. */
export const auditPage = page({ session_id: z.string(), entries: z.array(auditLine) });

export type AuditLine = z.output<typeof auditLine>;
export type AuditPage = z.output<typeof auditPage>;
