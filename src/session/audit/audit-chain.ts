import { hash } from 'node:crypto';
import { auditLineJson } from '../../core/audit-line.js';
import { hashJson } from '../../core/hash.js';
import type { AuditEntry } from '../../core/types.js';

/** The `prevHash` of a session's first audit line, and the chain head of a new session. */
export const AUDIT_GENESIS = `sha256:${'0'.repeat(64)}`;

/**
 * The hash of an audit line in its exported form (AuditLine, or the same object read
 * back from an export): `hashJson` of the line without its `hash`. Its `prev_hash` is
 * covered, so each hash vouches for every line before it.
 */
export function auditLineHash(line: object): string {
  // canonicalJson leaves undefined fields out: this is the line minus `hash`.
  return hashJson({ ...line, hash: undefined });
}

/**
 * Links `lines`, in order, after the chain head `head`: each gets `prevHash` (the hash
 * of the line before it) and its own `hash`. Returns them and the new head (`head`
 * when there are none). Pure: a transition links what it writes to the head of the
 * snapshot it read and its commit stores the lines with the new head, so the
 * compare-and-set on the session's version keeps one linear chain per session.
 */
export function chainAudit(
  head: string,
  lines: readonly AuditEntry[],
): { lines: AuditEntry[]; head: string } {
  let last = head;
  const chained = lines.map((line) => {
    const linked: AuditEntry = { ...line, prevHash: last };
    // auditLineHash of its exported line, without building that line twice.
    last = `sha256:${hash('sha256', auditLineJson(linked))}`;
    return { ...linked, hash: last };
  });
  return { lines: chained, head: last };
}
