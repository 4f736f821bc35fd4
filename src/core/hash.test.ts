import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUDIT_GENESIS, chainAudit } from '../session/audit/audit-chain.js';
import { auditLine, auditLineJson } from './audit-line.js';
import { canonicalJson, hashJson } from './hash.js';

// The canonical form is part of the audit log's format: every stored line's hash was
// computed from it. The expected strings and hashes below were made by the release
// before canonicalJson was rewritten for speed, so a change of form fails here.

/** canonicalJson as the release before wrote it: what the rewrite must equal. */
function previousCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(previousCanonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${previousCanonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out undefined fields, as the log has always hashed', () => {
    const value = {
      b: [1, { z: null, a: 'x', u: undefined }, [], 'é\u2028'],
      a: { 'k"ey': true, '': 0.5 },
      é: -1,
      A: undefined,
    };
    expect(canonicalJson(value)).toBe(
      '{"a":{"":0.5,"k\\"ey":true},"b":[1,{"a":"x","z":null},[],"é\u2028"],"é":-1}',
    );
    expect(hashJson(value)).toBe(
      'sha256:a581a4229a69c1d0322c7a2516562432e1e887dbca87583719cc91baf0f9afde',
    );
    // biome-ignore lint/suspicious/noSparseArray: a hole is written as the release before wrote it
    expect(canonicalJson([1, , 3])).toBe('[1,,3]');
    expect(canonicalJson([undefined, null])).toBe('[null,null]');
    expect(canonicalJson('s')).toBe('"s"');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('writes any value as the release before did', () => {
    const values = fc.anything({
      withSparseArray: true,
      withNullPrototype: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
    });
    fc.assert(
      fc.property(values, (value) => {
        expect(canonicalJson(value)).toBe(previousCanonicalJson(value));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('audit lines', () => {
  it('export and chain as the release before did', () => {
    const { lines, head } = chainAudit(AUDIT_GENESIS, [
      {
        at: 1765000000000,
        action: 'decided',
        sessionId: 's-1',
        invocationId: 'inv-1',
        actor: 'ann',
        approvalId: 'ap-1',
        toolName: 'pay',
        argsHash: hashJson({ amount: 5 }),
        approved: true,
        reason: 'ok',
        channel: 'rest',
      },
      {
        at: 1765000000001,
        action: 'resumed',
        sessionId: 's-1',
        invocationId: 'inv-1',
        actor: 'ann',
      },
    ]);
    const [decided] = lines;
    if (!decided) throw new Error('no line');
    expect(JSON.stringify(auditLine(decided))).toBe(
      '{"at":"2025-12-06T05:46:40.000Z","action":"decided","session_id":"s-1","invocation_id":"inv-1",' +
        '"actor":"ann","approval_id":"ap-1","tool_name":"pay",' +
        '"args_hash":"sha256:7e84cbf0f7a7c92c037058665d66152f8eb8580ab2534e52c877bccceb9cc7bf",' +
        '"approved":true,"reason":"ok","channel":"rest",' +
        `"prev_hash":"${AUDIT_GENESIS}",` +
        '"hash":"sha256:f52f41ac5cc0fa61131775437fa7df3565755bc89b668e011a360ff671a571a5"}',
    );
    expect(head).toBe('sha256:fb96d212b8468c1393ca98e6fdb5606283b4707275af56ecd99cbbd10fa94f68');
  });
});

describe('a line with every field', () => {
  it('exports and hashes as the release before did', () => {
    const { lines, head } = chainAudit(AUDIT_GENESIS, [
      {
        at: 0,
        action: 'decided',
        sessionId: 's',
        invocationId: 'inv',
        actor: 'maria',
        approvalId: 'a',
        toolName: 'pay',
        argsHash: 'sha256:1',
        payloadHash: 'sha256:2',
        approved: true,
        reason: 'r',
        unnamedPause: true,
        channel: 'link',
        onBehalfOf: 'kofi',
        to: ['user:kofi', 'role:x'],
        editedArgsHash: 'sha256:3',
        responseHash: 'sha256:4',
        grantId: 'grt_1',
        grantScope: 'session',
        grantUntil: 1,
      },
    ]);
    const hash = 'sha256:e074b061c12c6208cf432b3f94f918eaa8aa47627ec41094c1daae4d73647fdb';
    const [line] = lines;
    if (!line) throw new Error('no line');
    expect(JSON.stringify(auditLine(line))).toBe(
      '{"at":"1970-01-01T00:00:00.000Z","action":"decided","session_id":"s","invocation_id":"inv",' +
        '"actor":"maria","approval_id":"a","tool_name":"pay","args_hash":"sha256:1",' +
        '"payload_hash":"sha256:2","approved":true,"reason":"r","unnamed_pause":true,' +
        '"channel":"link","on_behalf_of":"kofi","to":["user:kofi","role:x"],' +
        '"edited_args_hash":"sha256:3","response_hash":"sha256:4","grant_id":"grt_1",' +
        '"grant_scope":"session","grant_until":"1970-01-01T00:00:00.001Z",' +
        `"prev_hash":"${AUDIT_GENESIS}","hash":"${hash}"}`,
    );
    expect(head).toBe(hash);
  });
});

describe('auditLineJson', () => {
  it('is the canonical JSON of the exported line without its hash, for any entry', () => {
    const text = fc.string({ maxLength: 12 });
    const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
    const entry = fc.record({
      at: fc.integer({ min: 0, max: 4_000_000_000_000 }),
      action: fc.constantFrom('started', 'requested', 'decided', 'escalated', 'executed'),
      sessionId: text,
      invocationId: text,
      actor: text,
      approvalId: optional(text),
      toolName: optional(text),
      argsHash: optional(text),
      payloadHash: optional(text),
      approved: optional(fc.boolean()),
      reason: optional(fc.string()),
      unnamedPause: optional(fc.constant(true as const)),
      channel: optional(text),
      onBehalfOf: optional(text),
      to: optional(fc.array(text, { maxLength: 3 })),
      editedArgsHash: optional(text),
      responseHash: optional(text),
      grantId: optional(text),
      grantScope: optional(fc.constantFrom('session' as const, 'user' as const)),
      grantUntil: optional(fc.integer({ min: 0, max: 4_000_000_000_000 })),
      prevHash: optional(text),
      hash: optional(text),
    });
    fc.assert(
      fc.property(entry, (e) => {
        expect(auditLineJson(e)).toBe(previousCanonicalJson({ ...auditLine(e), hash: undefined }));
      }),
      { numRuns: 500 },
    );
  });
});
