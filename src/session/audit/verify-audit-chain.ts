import { exportedSession, readAuditExport } from '../../core/audit-export.js';
import { AUDIT_GENESIS, auditLineHash } from './audit-chain.js';

/**
 * What checking an exported audit log found: the chain holds over `lines` lines, or
 * the first line (numbered from 1, the header not counted) where it breaks, and why;
 * `line` 0 is the export's header.
 */
export type AuditChainCheck =
  | { ok: true; lines: number }
  | { ok: false; line: number; reason: string };

/**
 * Checks a session's exported audit log (its NDJSON rows, parsed, oldest first; the
 * header row first, as the server exports it, or lines only): the first line links to
 * AUDIT_GENESIS, every other line's `prev_hash` is the hash of the line before it,
 * every `hash` is auditLineHash of its own line, and every line belongs to the session
 * exported (`sessionId`, else the one the header names). A changed line fails at that
 * line; a line removed, added or moved fails where the links break; a log re-hashed
 * under another session id fails at its first line. Lines cut off the end leave a
 * shorter chain that still holds: checkpoints (verifyAuditCheckpoints) show those.
 * Pure: it needs only the rows.
 */
export function verifyAuditChain(rows: readonly unknown[], sessionId?: string): AuditChainCheck {
  const read = readAuditExport(rows);
  if (!read.ok) return { ok: false, line: 0, reason: read.reason };
  const session = exportedSession(read, sessionId);
  if (!session.ok) return { ok: false, line: 0, reason: session.reason };
  let previous = AUDIT_GENESIS;
  for (const [index, line] of read.lines.entries()) {
    const broken = (reason: string): AuditChainCheck => ({ ok: false, line: index + 1, reason });
    if (typeof line !== 'object' || line === null || Array.isArray(line)) {
      return broken('it is not an audit line (a JSON object)');
    }
    const { prev_hash: prevHash, hash } = line as { prev_hash?: unknown; hash?: unknown };
    if (typeof prevHash !== 'string' || typeof hash !== 'string') {
      return broken('it carries no prev_hash and hash (written before the audit chain?)');
    }
    if (prevHash !== previous) {
      return broken(
        index === 0
          ? 'its prev_hash is not the genesis hash: the log does not start here'
          : `its prev_hash is not the hash of line ${index}: a line was removed, added or moved`,
      );
    }
    if (auditLineHash(line) !== hash) {
      return broken('its hash does not match its content: the line was changed');
    }
    const of = (line as { session_id?: unknown }).session_id;
    if (session.sessionId !== undefined && of !== session.sessionId) {
      return broken(
        `it belongs to session ${String(of)}, not ${session.sessionId}, the session exported: moved or renamed`,
      );
    }
    previous = hash;
  }
  return { ok: true, lines: read.lines.length };
}
