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

/**
 * The line `entry` is shown, exported and hashed as. Its fields are set one by one, in
 * the order an export writes them (it is on every commit's path: each line is hashed).
 */
export function auditLine(e: AuditEntry): AuditLine {
  const line: AuditLine = {
    at: new Date(e.at).toISOString(),
    action: e.action,
    session_id: e.sessionId,
    invocation_id: e.invocationId,
    actor: e.actor,
  };
  if (e.approvalId !== undefined) line.approval_id = e.approvalId;
  if (e.toolName !== undefined) line.tool_name = e.toolName;
  if (e.argsHash !== undefined) line.args_hash = e.argsHash;
  if (e.payloadHash !== undefined) line.payload_hash = e.payloadHash;
  if (e.approved !== undefined) line.approved = e.approved;
  if (e.reason !== undefined) line.reason = e.reason;
  if (e.unnamedPause !== undefined) line.unnamed_pause = e.unnamedPause;
  if (e.channel !== undefined) line.channel = e.channel;
  if (e.onBehalfOf !== undefined) line.on_behalf_of = e.onBehalfOf;
  if (e.to !== undefined) line.to = e.to;
  if (e.editedArgsHash !== undefined) line.edited_args_hash = e.editedArgsHash;
  if (e.responseHash !== undefined) line.response_hash = e.responseHash;
  if (e.grantId !== undefined) line.grant_id = e.grantId;
  if (e.grantScope !== undefined) line.grant_scope = e.grantScope;
  if (e.grantUntil !== undefined) line.grant_until = new Date(e.grantUntil).toISOString();
  if (e.prevHash !== undefined) line.prev_hash = e.prevHash;
  if (e.hash !== undefined) line.hash = e.hash;
  return line;
}

/**
 * What the hash of the line `e` is exported as covers: the canonical JSON (keys sorted,
 * absent fields left out, as `canonicalJson` writes it) of that line without its `hash`.
 * A line's keys are snake_case names and its values strings, booleans and a list of
 * strings, so that is one JSON.stringify of the line with its keys set in sorted order;
 * every commit hashes its lines through it.
 */
export function auditLineJson(e: AuditEntry): string {
  const line = auditLine(e) as unknown as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(line).sort()) if (key !== 'hash') sorted[key] = line[key];
  return JSON.stringify(sorted);
}
