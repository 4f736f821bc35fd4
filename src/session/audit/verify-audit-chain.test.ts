import { describe, expect, it } from 'vitest';
import { auditExportHeader } from '../../core/audit-export.js';
import { type AuditLine, auditLine } from '../../core/audit-line.js';
import type { AuditEntry } from '../../core/types.js';
import { AUDIT_GENESIS, chainAudit } from './audit-chain.js';
import { verifyAuditChain } from './verify-audit-chain.js';

const T0 = Date.parse('2026-01-02T03:04:05.006Z');

function entry(action: AuditEntry['action'], at: number, extra: Partial<AuditEntry> = {}) {
  return { at, action, sessionId: 's-1', invocationId: 'inv-1', actor: 'ann', ...extra };
}

/** A chained log, exported and read back as an NDJSON reader would. */
function exported(entries: AuditEntry[]): AuditLine[] {
  return chainAudit(AUDIT_GENESIS, entries).lines.map(
    (line) => JSON.parse(JSON.stringify(auditLine(line))) as AuditLine,
  );
}

const log = () =>
  exported([
    entry('started', T0),
    entry('requested', T0 + 1, { actor: 'agent', approvalId: 'a-1', argsHash: 'sha256:ab' }),
    entry('decided', T0 + 2, { approvalId: 'a-1', approved: true, reason: 'fine ✓' }),
    entry('resumed', T0 + 3),
    entry('completed', T0 + 4, { actor: 'agent' }),
  ]);

describe('verifyAuditChain', () => {
  it('holds over an exported log, and over an empty one', () => {
    const lines = log();
    expect(lines[0]?.prev_hash).toBe(AUDIT_GENESIS);
    expect(lines[1]?.prev_hash).toBe(lines[0]?.hash);
    expect(verifyAuditChain(lines)).toEqual({ ok: true, lines: 5 });
    expect(verifyAuditChain([])).toEqual({ ok: true, lines: 0 });
  });

  it('chains a second commit onto the head the first left', () => {
    const first = chainAudit(AUDIT_GENESIS, [entry('started', T0)]);
    const second = chainAudit(first.head, [entry('completed', T0 + 1)]);
    expect(second.lines[0]?.prevHash).toBe(first.head);
    expect(chainAudit(second.head, []).head).toBe(second.head);
    const lines = [...first.lines, ...second.lines].map(auditLine);
    expect(verifyAuditChain(lines)).toEqual({ ok: true, lines: 2 });
  });

  it('finds a changed line, even with its key order changed', () => {
    const lines = log();
    const changed = lines.map((line, i) => (i === 2 ? { ...line, approved: false } : line));
    expect(verifyAuditChain(changed)).toEqual({
      ok: false,
      line: 3,
      reason: expect.stringMatching(/hash does not match/),
    });
    const reordered = lines.map((line) => Object.fromEntries(Object.entries(line).reverse()));
    expect(verifyAuditChain(reordered)).toEqual({ ok: true, lines: 5 });
  });

  it('finds a changed line whose hash was made again, at the next line', () => {
    const lines = log();
    const [forged] = chainAudit(lines[1]?.hash ?? '', [
      entry('decided', T0 + 2, { approvalId: 'a-1', approved: false }),
    ]).lines.map(auditLine);
    const result = verifyAuditChain([...lines.slice(0, 2), forged, ...lines.slice(3)]);
    expect(result).toEqual({ ok: false, line: 4, reason: expect.stringMatching(/line 3/) });
  });

  it('finds lines removed, moved, or a log that does not start at the genesis', () => {
    const lines = log();
    expect(verifyAuditChain([...lines.slice(0, 1), ...lines.slice(2)])).toMatchObject({
      ok: false,
      line: 2,
    });
    expect(verifyAuditChain([lines[1], lines[0], ...lines.slice(2)])).toMatchObject({
      ok: false,
      line: 1,
      reason: expect.stringMatching(/genesis/),
    });
    // Cut off the end, the rest still holds (docs: keep the last hash to see that).
    expect(verifyAuditChain(lines.slice(0, 3))).toEqual({ ok: true, lines: 3 });
  });

  it('refuses what is not a chained audit line', () => {
    const lines = log();
    const { hash: _, ...unhashed } = lines[0] as AuditLine;
    expect(verifyAuditChain([unhashed])).toMatchObject({
      ok: false,
      line: 1,
      reason: expect.stringMatching(/no prev_hash and hash/),
    });
    expect(verifyAuditChain([lines[0], 'text'])).toMatchObject({ ok: false, line: 2 });
    expect(verifyAuditChain([null])).toMatchObject({ ok: false, line: 1 });
  });

  it("reads an export's header: every line must be of the session it names, or of the one asked for", () => {
    const lines = log();
    const header = auditExportHeader('s-1');
    expect(verifyAuditChain([header, ...lines])).toEqual({ ok: true, lines: 5 });
    expect(verifyAuditChain([header])).toEqual({ ok: true, lines: 0 });
    expect(verifyAuditChain(lines, 's-1')).toEqual({ ok: true, lines: 5 });

    // Every line moved under another id and re-hashed: a chain that holds, of another session.
    const renamed = exported(
      lines.map((_, i) => entry('started', T0 + i, { sessionId: 'renamed' })),
    );
    expect(verifyAuditChain(renamed)).toEqual({ ok: true, lines: 5 });
    expect(verifyAuditChain([header, ...renamed])).toEqual({
      ok: false,
      line: 1,
      reason: 'it belongs to session renamed, not s-1, the session exported: moved or renamed',
    });
    expect(verifyAuditChain(renamed, 's-1')).toMatchObject({ ok: false, line: 1 });
    // A line of another session spliced in, re-chained.
    const spliced = exported([
      entry('started', T0),
      entry('decided', T0 + 1, { sessionId: 's-2' }),
    ]);
    expect(verifyAuditChain([header, ...spliced])).toMatchObject({ ok: false, line: 2 });
  });

  it('refuses a header it cannot read, or one naming another session than the one asked for, as line 0', () => {
    const lines = log();
    expect(verifyAuditChain([auditExportHeader('s-1'), ...lines], 's-2')).toEqual({
      ok: false,
      line: 0,
      reason: 'its header names session s-1, not s-2, the session asked for',
    });
    expect(verifyAuditChain([{ export: 'audit', v: 2, session_id: 's-1' }])).toEqual({
      ok: false,
      line: 0,
      reason: expect.stringMatching(/^its header is of export format v2, which this release/),
    });
    expect(verifyAuditChain([{ export: 'audit', v: 1 }, ...lines])).toEqual({
      ok: false,
      line: 0,
      reason: 'its header names no session',
    });
  });
});
