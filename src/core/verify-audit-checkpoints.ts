import type { KeyObject } from 'node:crypto';
import { checkAuditCheckpoint } from './audit-checkpoint.js';
import { exportedSession, readAuditExport } from './audit-export.js';
import { HoldpointError } from './errors.js';

/**
 * What checking an export against signed checkpoints found: every checkpoint is
 * signed and every head they name for the export's session is in it (`heads` of them),
 * or the first checkpoint (numbered from 1, as the file's lines) that fails, and why.
 */
export type CheckpointsCheck =
  | { ok: true; checkpoints: number; heads: number }
  | { ok: false; checkpoint: number; reason: string };

/**
 * Checks a session's exported audit log (its rows, parsed, whose chain verifyAuditChain
 * found holding) against checkpoint records (parsed, in file order): each must be
 * signed by one of `publicKeys`, and each head a checkpoint names for the session
 * exported (`sessionId`, else the one the export's header names) must be the hash of
 * one of its lines. A log rewritten from before a checkpoint and re-hashed, cut short
 * before it, or deleted, no longer contains that head; a log moved under another
 * session id is checked against the session it was exported as, so it fails the same
 * way. Heads of other sessions are not looked at: a checkpoint names every session that
 * changed. VALIDATION_FAILED when the export says of no session and `sessionId` is not
 * given, or names another.
 */
export function verifyAuditCheckpoints(
  rows: readonly unknown[],
  checkpoints: readonly unknown[],
  publicKeys: readonly KeyObject[],
  sessionId?: string,
): CheckpointsCheck {
  const read = readAuditExport(rows);
  if (!read.ok) throw new HoldpointError('VALIDATION_FAILED', `The export: ${read.reason}.`);
  const session = exportedSession(read, sessionId);
  if (!session.ok) throw new HoldpointError('VALIDATION_FAILED', `The export: ${session.reason}.`);
  const exported = session.sessionId;
  if (exported === undefined) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      'The export names no session (it has no header row): say which session it is of.',
    );
  }
  const hashes = new Set<unknown>(read.lines.map((line) => (line as { hash?: unknown }).hash));
  let heads = 0;
  for (const [index, record] of checkpoints.entries()) {
    const checked = checkAuditCheckpoint(record, publicKeys);
    if (!checked.ok) return { ok: false, checkpoint: index + 1, reason: checked.reason };
    const { at, heads: named } = checked.checkpoint;
    for (const head of named) {
      if (head.session_id !== exported) continue;
      if (read.lines.length === 0) {
        return {
          ok: false,
          checkpoint: index + 1,
          reason: `the export holds no line of session ${exported}, which was checkpointed at ${at} with head ${head.hash}: its log was deleted`,
        };
      }
      if (!hashes.has(head.hash)) {
        return {
          ok: false,
          checkpoint: index + 1,
          reason:
            `the export does not contain the head checkpointed at ${at} for session ` +
            `${exported} (${head.hash}): rewritten or cut short`,
        };
      }
      heads++;
    }
  }
  return { ok: true, checkpoints: checkpoints.length, heads };
}
