import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { auditPublicKeyFrom } from '../core/audit-checkpoint.js';
import { HoldpointError } from '../core/errors.js';
import { type AuditChainCheck, verifyAuditChain } from '../core/verify-audit-chain.js';
import { type CheckpointsCheck, verifyAuditCheckpoints } from '../core/verify-audit-checkpoints.js';

/** NDJSON rows, parsed, up to the first that is not JSON (numbered from 1), if any. */
function parseRows(ndjson: string): { rows: unknown[]; badRow?: number } {
  const texts = ndjson.split('\n');
  if (texts.at(-1) === '') texts.pop();
  const rows: unknown[] = [];
  for (const [index, row] of texts.entries()) {
    try {
      rows.push(JSON.parse(row));
    } catch {
      return { rows, badRow: index + 1 };
    }
  }
  return { rows };
}

/** What checking an export found: its chain, then (when given) the checkpoints. */
export type AuditFileCheck = AuditChainCheck & {
  /** The export against the signed checkpoints, once its chain holds. */
  checkpoints?: CheckpointsCheck;
  /** The sessions the export holds that no checkpoint names. */
  unnamed?: string[];
};

/** Signed checkpoints to check an export against, and the keys they may be signed with. */
export interface CheckpointFiles {
  /** The checkpoints (NDJSON), as a sink wrote them. */
  file: string;
  /** Ed25519 public keys (PEM), or the private keys whose public halves are taken. */
  keys: string[];
}

async function readKey(path: string) {
  const pem = await readFile(path, 'utf8').catch((error: unknown) => {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `Cannot read the key ${path}: ${(error as Error).message}`,
    );
  });
  return auditPublicKeyFrom(pem);
}

/**
 * Checks an exported audit log (`GET /api/audit?session_id=…&format=ndjson`) with
 * verifyAuditChain; `path` `-` reads it from `stdin`. Rows are numbered as the file's
 * lines: a row that is not JSON breaks the chain there, and only the final newline
 * may end the file (a blank row in between is a broken row, not a skipped one). With
 * `checkpoints`, a chain that holds is then checked against them
 * (verifyAuditCheckpoints): a key that cannot be read is VALIDATION_FAILED, a
 * checkpoint row that is not JSON fails at that row.
 */
export async function verifyAuditFile(
  path: string,
  stdin: NodeJS.ReadableStream = process.stdin,
  checkpoints?: CheckpointFiles,
): Promise<AuditFileCheck> {
  const keys = checkpoints && (await Promise.all(checkpoints.keys.map(readKey)));
  const ndjson = path === '-' ? await text(stdin) : await readFile(path, 'utf8');
  const { rows: lines, badRow } = parseRows(ndjson);
  const chain = verifyAuditChain(lines);
  // The rows before a row that is not JSON may break the chain first.
  if (!chain.ok) return chain;
  if (badRow !== undefined) return { ok: false, line: badRow, reason: 'it is not JSON' };
  if (!checkpoints || !keys) return chain;
  const records = parseRows(await readFile(checkpoints.file, 'utf8'));
  const checked = verifyAuditCheckpoints(lines, records.rows, keys);
  if (!checked.ok) return { ...chain, checkpoints: checked };
  if (records.badRow !== undefined) {
    return {
      ...chain,
      checkpoints: { ok: false, checkpoint: records.badRow, reason: 'it is not JSON' },
    };
  }
  const named = new Set(
    records.rows.flatMap((record) =>
      (record as { heads: { session_id: string }[] }).heads.map((head) => head.session_id),
    ),
  );
  const sessions = new Set(lines.map((line) => (line as { session_id?: unknown }).session_id));
  const unnamed = [...sessions].filter(
    (session): session is string => typeof session === 'string' && !named.has(session),
  );
  return { ...chain, checkpoints: checked, ...(unnamed.length > 0 && { unnamed }) };
}
