import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { auditPublicKeyFrom } from '../core/audit-checkpoint.js';
import { readAuditExport } from '../core/audit-export.js';
import { HoldpointError } from '../core/errors.js';
import { type CheckpointsCheck, verifyAuditCheckpoints } from '../core/verify-audit-checkpoints.js';
import { type AuditChainCheck, verifyAuditChain } from '../session/audit/verify-audit-chain.js';

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
  /** The session exported, when no checkpoint names it. */
  unnamed?: string;
};

/** Signed checkpoints to check an export against, and the keys they may be signed with. */
export interface CheckpointFiles {
  /** The checkpoints (NDJSON), as a sink wrote them. */
  file: string;
  /** Ed25519 public keys (PEM), or the private keys whose public halves are taken. */
  keys: string[];
}

/** What to check an export against besides its own chain. */
export interface AuditFileOptions {
  /** The session the export must be of (`--session`); else the one its header names. */
  session?: string;
  checkpoints?: CheckpointFiles;
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
 * verifyAuditChain; `path` `-` reads it from `stdin`. Lines are numbered from 1 after
 * the header row (the file's row 1): a row that is not JSON breaks the chain there, and
 * only the final newline may end the file (a blank row in between is a broken row, not
 * a skipped one). With `checkpoints`, a chain that holds is then checked against them
 * (verifyAuditCheckpoints): a key that cannot be read, or an export that names no
 * session (one from before exports had a header) without `session`, is
 * VALIDATION_FAILED; a checkpoint row that is not JSON fails at that row.
 */
export async function verifyAuditFile(
  path: string,
  stdin: NodeJS.ReadableStream = process.stdin,
  options: AuditFileOptions = {},
): Promise<AuditFileCheck> {
  const { checkpoints } = options;
  const keys = checkpoints && (await Promise.all(checkpoints.keys.map(readKey)));
  const ndjson = path === '-' ? await text(stdin) : await readFile(path, 'utf8');
  const { rows, badRow } = parseRows(ndjson);
  const chain = verifyAuditChain(rows, options.session);
  // The rows before a row that is not JSON may break the chain first.
  if (!chain.ok) return chain;
  const read = readAuditExport(rows);
  const headerRows = read.ok ? rows.length - read.lines.length : 0;
  if (badRow !== undefined) {
    return { ok: false, line: badRow - headerRows, reason: 'it is not JSON' };
  }
  if (!checkpoints || !keys) return chain;
  const session = options.session ?? (read.ok ? read.sessionId : undefined);
  if (session === undefined) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `${path} names no session (it has no header row: exported by a release before exports had one): give --session ID, the session it was exported from.`,
    );
  }
  const records = parseRows(await readFile(checkpoints.file, 'utf8'));
  const checked = verifyAuditCheckpoints(rows, records.rows, keys, session);
  if (!checked.ok) return { ...chain, checkpoints: checked };
  if (records.badRow !== undefined) {
    return {
      ...chain,
      checkpoints: { ok: false, checkpoint: records.badRow, reason: 'it is not JSON' },
    };
  }
  const named = records.rows.some((record) =>
    (record as { heads: { session_id: string }[] }).heads.some(
      (head) => head.session_id === session,
    ),
  );
  return { ...chain, checkpoints: checked, ...(!named && { unnamed: session }) };
}
