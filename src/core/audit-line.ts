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
 * Each field of a line, in the order an export writes them: its name in the line, the
 * entry's field it shows, and whether that is a time (epoch ms, shown in ISO 8601).
 */
const FIELDS: readonly (readonly [keyof AuditLine, keyof AuditEntry, 'time'?])[] = [
  ['at', 'at', 'time'],
  ['action', 'action'],
  ['session_id', 'sessionId'],
  ['invocation_id', 'invocationId'],
  ['actor', 'actor'],
  ['approval_id', 'approvalId'],
  ['tool_name', 'toolName'],
  ['args_hash', 'argsHash'],
  ['payload_hash', 'payloadHash'],
  ['approved', 'approved'],
  ['reason', 'reason'],
  ['unnamed_pause', 'unnamedPause'],
  ['channel', 'channel'],
  ['on_behalf_of', 'onBehalfOf'],
  ['to', 'to'],
  ['edited_args_hash', 'editedArgsHash'],
  ['response_hash', 'responseHash'],
  ['grant_id', 'grantId'],
  ['grant_scope', 'grantScope'],
  ['grant_until', 'grantUntil', 'time'],
  ['prev_hash', 'prevHash'],
  ['hash', 'hash'],
];

/** The line of `e` with `fields`, in their order; a field the entry lacks is left out. */
function lineOf(e: AuditEntry, fields: typeof FIELDS): AuditLine {
  const line: Record<string, unknown> = {};
  const entry = e as unknown as Record<string, unknown>;
  for (const [name, from, time] of fields) {
    const value = entry[from];
    if (value !== undefined) line[name] = time ? new Date(value as number).toISOString() : value;
  }
  return line as unknown as AuditLine;
}

/** The line `entry` is shown, exported and hashed as. */
export function auditLine(e: AuditEntry): AuditLine {
  return lineOf(e, FIELDS);
}

/**
 * What the hash of the line `e` is exported as covers: the canonical JSON (keys sorted,
 * absent fields left out, as `canonicalJson` writes it) of that line without its `hash`.
 * A line's names are snake_case and its values strings, booleans and a list of strings,
 * so that is one JSON.stringify of the line built with its names in sorted order (every
 * field of FIELDS but `hash`; src/core/audit-line.test.ts holds the two to each other).
 * Every commit hashes its lines through it.
 */
export function auditLineJson(e: AuditEntry): string {
  const time = (at: number | undefined) =>
    at === undefined ? undefined : new Date(at).toISOString();
  return JSON.stringify({
    action: e.action,
    actor: e.actor,
    approval_id: e.approvalId,
    approved: e.approved,
    args_hash: e.argsHash,
    at: time(e.at),
    channel: e.channel,
    edited_args_hash: e.editedArgsHash,
    grant_id: e.grantId,
    grant_scope: e.grantScope,
    grant_until: time(e.grantUntil),
    invocation_id: e.invocationId,
    on_behalf_of: e.onBehalfOf,
    payload_hash: e.payloadHash,
    prev_hash: e.prevHash,
    reason: e.reason,
    response_hash: e.responseHash,
    session_id: e.sessionId,
    to: e.to,
    tool_name: e.toolName,
    unnamed_pause: e.unnamedPause,
  });
}
