import { describe, expect, it } from 'vitest';
import { AUDIT_GENESIS, chainAudit } from '../session/audit/audit-chain.js';
import { verifyAuditChain } from '../session/audit/verify-audit-chain.js';
import {
  auditPublicKeyFrom,
  auditSigningKeyFrom,
  newAuditKeyPair,
  signAuditCheckpoint,
} from './audit-checkpoint.js';
import { auditExportHeader } from './audit-export.js';
import { type AuditLine, auditLine } from './audit-line.js';
import type { AuditEntry } from './types.js';
import { verifyAuditCheckpoints } from './verify-audit-checkpoints.js';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const pair = newAuditKeyPair();
const key = auditSigningKeyFrom(pair.privatePem);
const publicKey = auditPublicKeyFrom(pair.publicPem);

function entry(action: AuditEntry['action'], at: number, actor = 'ann'): AuditEntry {
  return { at, action, sessionId: 's-1', invocationId: 'inv-1', actor };
}

/** A chained log as exported. */
function exported(entries: AuditEntry[]): AuditLine[] {
  return chainAudit(AUDIT_GENESIS, entries).lines.map(auditLine);
}

const ENTRIES = [
  entry('started', T0),
  entry('requested', T0 + 1, 'agent'),
  entry('decided', T0 + 2),
  entry('resumed', T0 + 3),
  entry('completed', T0 + 4, 'agent'),
];

/** Checkpoints taken after the third line and after the last. */
function checkpointsOf(log: AuditLine[]) {
  return [
    signAuditCheckpoint(
      [
        { session_id: 's-1', hash: log[2]?.hash ?? '' },
        { session_id: 'other', hash: 'sha256:x' },
      ],
      T0 + 2,
      key,
    ),
    signAuditCheckpoint([{ session_id: 's-1', hash: log[4]?.hash ?? '' }], T0 + 4, key),
  ];
}

describe('verifyAuditCheckpoints', () => {
  const log = exported(ENTRIES);
  const checkpoints = checkpointsOf(log);

  it('passes an untouched log: every head of its session is in it; other sessions are not looked at', () => {
    expect(verifyAuditCheckpoints(log, checkpoints, [publicKey], 's-1')).toEqual({
      ok: true,
      checkpoints: 2,
      heads: 2,
    });
    expect(verifyAuditCheckpoints(log, [], [publicKey], 's-1')).toEqual({
      ok: true,
      checkpoints: 0,
      heads: 0,
    });
  });

  it('fails a log rewritten from before a checkpoint and re-hashed, though its chain holds', () => {
    // From the third line on, a decision by someone else, every later hash computed again.
    const rewritten = exported([
      ...ENTRIES.slice(0, 2),
      entry('decided', T0 + 2, 'mallory'),
      ...ENTRIES.slice(3),
    ]);
    expect(verifyAuditChain(rewritten)).toEqual({ ok: true, lines: 5 });
    expect(verifyAuditCheckpoints(rewritten, checkpoints, [publicKey], 's-1')).toEqual({
      ok: false,
      checkpoint: 1,
      reason: `the export does not contain the head checkpointed at 2026-11-22T12:00:00.002Z for session s-1 (${log[2]?.hash}): rewritten or cut short`,
    });
  });

  it('fails a log cut short before a checkpoint', () => {
    const cut = log.slice(0, 4);
    expect(verifyAuditChain(cut)).toEqual({ ok: true, lines: 4 });
    expect(verifyAuditCheckpoints(cut, checkpoints, [publicKey], 's-1')).toMatchObject({
      ok: false,
      checkpoint: 2,
      reason: expect.stringMatching(/checkpointed at 2026-11-22T12:00:00.004Z .*cut short/),
    });
  });

  it('fails on a checkpoint whose signature does not hold', () => {
    const [first, second] = checkpoints;
    const forged = { ...second, heads: [{ session_id: 's-1', hash: log[3]?.hash }] };
    expect(verifyAuditCheckpoints(log.slice(0, 4), [first, forged], [publicKey], 's-1')).toEqual({
      ok: false,
      checkpoint: 2,
      reason: 'its signature does not match its content: it was changed',
    });
  });

  it("checks the session the export's header names, even when none of its lines is left or they name another", () => {
    const header = auditExportHeader('s-1');
    expect(verifyAuditCheckpoints([header, ...log], checkpoints, [publicKey])).toEqual({
      ok: true,
      checkpoints: 2,
      heads: 2,
    });
    // Every line deleted: the checkpointed heads of s-1 have nothing to be in.
    expect(verifyAuditCheckpoints([header], checkpoints, [publicKey])).toEqual({
      ok: false,
      checkpoint: 1,
      reason: `the export holds no line of session s-1, which was checkpointed at 2026-11-22T12:00:00.002Z with head ${log[2]?.hash}: its log was deleted`,
    });
    expect(verifyAuditCheckpoints([], checkpoints, [publicKey], 's-1')).toMatchObject({
      ok: false,
      checkpoint: 1,
    });
    // Moved under another id and re-hashed: still checked as s-1, whose heads it lacks.
    const renamed = exported(ENTRIES.map((e) => ({ ...e, sessionId: 'renamed' })));
    expect(verifyAuditCheckpoints([header, ...renamed], checkpoints, [publicKey])).toMatchObject({
      ok: false,
      checkpoint: 1,
      reason: expect.stringMatching(/for session s-1 .*rewritten or cut short$/),
    });
    // A session no checkpoint names: nothing to hold it to.
    expect(verifyAuditCheckpoints([auditExportHeader('new')], checkpoints, [publicKey])).toEqual({
      ok: true,
      checkpoints: 2,
      heads: 0,
    });
  });

  it('refuses an export that names no session when none is given, or another than the one given', () => {
    expect(() => verifyAuditCheckpoints(log, checkpoints, [publicKey])).toThrow(
      'The export names no session (it has no header row): say which session it is of.',
    );
    expect(() =>
      verifyAuditCheckpoints([auditExportHeader('s-2'), ...log], checkpoints, [publicKey], 's-1'),
    ).toThrow('The export: its header names session s-2, not s-1, the session asked for.');
  });
});
