import type { KeyObject } from 'node:crypto';
import { checkAuditCheckpoint } from './audit-checkpoint.js';

/**
 * What checking an export against signed checkpoints found: every checkpoint is
 * signed and every head they name for the export's session is in it (`heads` of them),
 * or the first checkpoint (numbered from 1, as the file's lines) that fails, and why.
 */
export type CheckpointsCheck =
  | { ok: true; checkpoints: number; heads: number }
  | { ok: false; checkpoint: number; reason: string };

/**
 * Checks an exported audit log (its lines, parsed, whose chain verifyAuditChain found
 * holding) against checkpoint records (parsed, in file order): each must be signed by
 * one of `publicKeys`, and each head a checkpoint names for a session the export holds
 * must be the hash of one of its lines. A log rewritten from before a checkpoint and
 * re-hashed, or cut short before it, no longer contains that head. Sessions the export
 * does not hold are not looked at: a checkpoint names every session that changed.
 */
export function verifyAuditCheckpoints(
  lines: readonly unknown[],
  checkpoints: readonly unknown[],
  publicKeys: readonly KeyObject[],
): CheckpointsCheck {
  const sessions = new Set<string>();
  const hashes = new Set<string>();
  for (const line of lines) {
    const { session_id: sessionId, hash } = line as { session_id?: unknown; hash?: unknown };
    if (typeof sessionId === 'string') sessions.add(sessionId);
    if (typeof hash === 'string') hashes.add(hash);
  }
  let heads = 0;
  for (const [index, record] of checkpoints.entries()) {
    const checked = checkAuditCheckpoint(record, publicKeys);
    if (!checked.ok) return { ok: false, checkpoint: index + 1, reason: checked.reason };
    const { at, heads: named } = checked.checkpoint;
    for (const head of named) {
      if (!sessions.has(head.session_id)) continue;
      if (!hashes.has(head.hash)) {
        return {
          ok: false,
          checkpoint: index + 1,
          reason:
            `the export does not contain the head checkpointed at ${at} for session ` +
            `${head.session_id} (${head.hash}): rewritten or cut short`,
        };
      }
      heads++;
    }
  }
  return { ok: true, checkpoints: checkpoints.length, heads };
}
