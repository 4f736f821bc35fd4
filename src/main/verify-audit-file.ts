import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { type AuditChainCheck, verifyAuditChain } from '../core/verify-audit-chain.js';

/**
 * Checks an exported audit log (`GET /api/audit?session_id=…&format=ndjson`) with
 * verifyAuditChain; `path` `-` reads it from `stdin`. Rows are numbered as the file's
 * lines: a row that is not JSON breaks the chain there, and only the final newline
 * may end the file (a blank row in between is a broken row, not a skipped one).
 */
export async function verifyAuditFile(
  path: string,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<AuditChainCheck> {
  const ndjson = path === '-' ? await text(stdin) : await readFile(path, 'utf8');
  const rows = ndjson.split('\n');
  if (rows.at(-1) === '') rows.pop();
  const lines: unknown[] = [];
  for (const [index, row] of rows.entries()) {
    try {
      lines.push(JSON.parse(row));
    } catch {
      // The rows before it may break the chain first.
      const before = verifyAuditChain(lines);
      return before.ok ? { ok: false, line: index + 1, reason: 'it is not JSON' } : before;
    }
  }
  return verifyAuditChain(lines);
}
