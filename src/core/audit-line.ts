import type { AuditAction, AuditEntry } from './types.js';

/**
 * An audit line as the API shows and exports it: snake_case fields, ISO 8601 times,
 * absent fields left out. The audit chain hashes this form, not the stored record, so
 * an export alone is enough to check the chain (verifyAuditChain) and what a line
 * shows is exactly what its hash covers. This form is part of the log's format:
 * changing it changes every line's hash.
 */
export interface AuditLine {
  at: string;
  action: AuditAction;
  session_id: string;
  invocation_id: string;
  actor: string;
  approval_id?: string;
  tool_name?: string;
  args_hash?: string;
  payload_hash?: string;
  approved?: boolean;
  reason?: string;
  unnamed_pause?: true;
  channel?: string;
  on_behalf_of?: string;
  to?: string[];
  edited_args_hash?: string;
  response_hash?: string;
  grant_id?: string;
  grant_scope?: 'session' | 'user';
  grant_until?: string;
  prev_hash?: string;
  hash?: string;
}

/** The line `entry` is shown, exported and hashed as. */
export function auditLine(e: AuditEntry): AuditLine {
  return {
    at: new Date(e.at).toISOString(),
    action: e.action,
    session_id: e.sessionId,
    invocation_id: e.invocationId,
    actor: e.actor,
    ...(e.approvalId === undefined ? {} : { approval_id: e.approvalId }),
    ...(e.toolName === undefined ? {} : { tool_name: e.toolName }),
    ...(e.argsHash === undefined ? {} : { args_hash: e.argsHash }),
    ...(e.payloadHash === undefined ? {} : { payload_hash: e.payloadHash }),
    ...(e.approved === undefined ? {} : { approved: e.approved }),
    ...(e.reason === undefined ? {} : { reason: e.reason }),
    ...(e.unnamedPause === undefined ? {} : { unnamed_pause: e.unnamedPause }),
    ...(e.channel === undefined ? {} : { channel: e.channel }),
    ...(e.onBehalfOf === undefined ? {} : { on_behalf_of: e.onBehalfOf }),
    ...(e.to === undefined ? {} : { to: e.to }),
    ...(e.editedArgsHash === undefined ? {} : { edited_args_hash: e.editedArgsHash }),
    ...(e.responseHash === undefined ? {} : { response_hash: e.responseHash }),
    ...(e.grantId === undefined ? {} : { grant_id: e.grantId }),
    ...(e.grantScope === undefined ? {} : { grant_scope: e.grantScope }),
    ...(e.grantUntil === undefined ? {} : { grant_until: new Date(e.grantUntil).toISOString() }),
    ...(e.prevHash === undefined ? {} : { prev_hash: e.prevHash }),
    ...(e.hash === undefined ? {} : { hash: e.hash }),
  };
}
