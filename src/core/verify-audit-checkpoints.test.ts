import { describe, expect, it } from 'vitest';
import { AUDIT_GENESIS, chainAudit } from './audit-chain.js';
import {
  auditPublicKeyFrom,
  auditSigningKeyFrom,
  newAuditKeyPair,
  signAuditCheckpoint,
} from './audit-checkpoint.js';
import { type AuditLine, auditLine } from './audit-line.js';
import type { AuditEntry } from './types.js';
import { verifyAuditChain } from './verify-audit-chain.js';
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
    expect(verifyAuditCheckpoints(log, checkpoints, [publicKey])).toEqual({
      ok: true,
      checkpoints: 2,
      heads: 2,
    });
    expect(verifyAuditCheckpoints(log, [], [publicKey])).toEqual({
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
    expect(verifyAuditCheckpoints(rewritten, checkpoints, [publicKey])).toEqual({
      ok: false,
      checkpoint: 1,
      reason: `the export does not contain the head checkpointed at 2026-11-22T12:00:00.002Z for session s-1 (${log[2]?.hash}): rewritten or cut short`,
    });
  });

  it('fails a log cut short before a checkpoint', () => {
    const cut = log.slice(0, 4);
    expect(verifyAuditChain(cut)).toEqual({ ok: true, lines: 4 });
    expect(verifyAuditCheckpoints(cut, checkpoints, [publicKey])).toMatchObject({
      ok: false,
      checkpoint: 2,
      reason: expect.stringMatching(/checkpointed at 2026-11-22T12:00:00.004Z .*cut short/),
    });
  });

  it('fails on a checkpoint whose signature does not hold', () => {
    const [first, second] = checkpoints;
    const forged = { ...second, heads: [{ session_id: 's-1', hash: log[3]?.hash }] };
    expect(verifyAuditCheckpoints(log.slice(0, 4), [first, forged], [publicKey])).toEqual({
      ok: false,
      checkpoint: 2,
      reason: 'its signature does not match its content: it was changed',
    });
  });
});
