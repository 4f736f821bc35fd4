/**
 * The first row of an audit export (`GET /api/audit?…&format=ndjson`): what the file is,
 * the version of its format, and the session it was asked for. The server writes the
 * session from the request, not from the store, so someone who rewrites the store can
 * change what the lines say but not which session the export claims to be: every line
 * must carry that session (verifyAuditChain), and the checkpoints' heads for it must be
 * in the export (verifyAuditCheckpoints), even when it has no line left.
 */
export interface AuditExportHeader {
  export: 'audit';
  v: 1;
  session_id: string;
}

/** The header of the export of `sessionId`'s audit log. */
export function auditExportHeader(sessionId: string): AuditExportHeader {
  return { export: 'audit', v: 1, session_id: sessionId };
}

/**
 * An export's rows (parsed) read as its header and its lines: `sessionId` the session
 * its header names, absent for an export from before exports had one (its rows are
 * all lines); else why the header cannot be read.
 */
export type AuditExportRows =
  | { ok: true; sessionId?: string; lines: readonly unknown[] }
  | { ok: false; reason: string };

/** Splits an export's first row off when it is a header (`{"export":"audit",…}`). */
export function readAuditExport(rows: readonly unknown[]): AuditExportRows {
  const [first, ...lines] = rows;
  const header = first as Partial<AuditExportHeader> | null | undefined;
  if (typeof header !== 'object' || header === null || header.export !== 'audit') {
    return { ok: true, lines: rows };
  }
  if (header.v !== 1) {
    return {
      ok: false,
      reason: `its header is of export format v${String(header.v)}, which this release does not read: verify it with a later release`,
    };
  }
  if (typeof header.session_id !== 'string' || header.session_id === '') {
    return { ok: false, reason: 'its header names no session' };
  }
  return { ok: true, sessionId: header.session_id, lines };
}

/**
 * The session an export is checked against: `asked` (what the verifier says it is
 * of, `--session`) when given, else the one its header names; a header naming another
 * session than `asked` is why not.
 */
export function exportedSession(
  read: { sessionId?: string },
  asked: string | undefined,
): { ok: true; sessionId?: string } | { ok: false; reason: string } {
  if (asked !== undefined && read.sessionId !== undefined && asked !== read.sessionId) {
    return {
      ok: false,
      reason: `its header names session ${read.sessionId}, not ${asked}, the session asked for`,
    };
  }
  return { ok: true, sessionId: asked ?? read.sessionId };
}
