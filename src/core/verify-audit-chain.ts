import { AUDIT_GENESIS, auditLineHash } from './audit-chain.js';

/**
 * What checking an exported audit log found: the chain holds over `lines` lines, or
 * the first line (numbered from 1, as in the file) where it breaks, and why.
 */
export type AuditChainCheck =
  | { ok: true; lines: number }
  | { ok: false; line: number; reason: string };

/**
 * Checks a session's exported audit log (its NDJSON rows, parsed, oldest first): the
 * first line links to AUDIT_GENESIS, every other line's `prev_hash` is the hash of
 * the line before it, and every `hash` is auditLineHash of its own line. A changed
 * line fails at that line; a line removed, added or moved fails where the links
 * break. Lines cut off the end leave a shorter chain that still holds: compare the
 * last hash with one kept elsewhere to see those. Pure: it needs only the lines.
 */
export function verifyAuditChain(lines: readonly unknown[]): AuditChainCheck {
  let previous = AUDIT_GENESIS;
  for (const [index, line] of lines.entries()) {
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
    previous = hash;
  }
  return { ok: true, lines: lines.length };
}
