import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { auditLine, auditLineJson } from './audit-line.js';
import { canonicalJson } from './hash.js';
import type { AuditEntry } from './types.js';

/** An entry with every optional field set, so its line shows every field an export can carry. */
const EVERY_FIELD_ENTRY: AuditEntry = {
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
  to: ['user:kofi'],
  editedArgsHash: 'sha256:3',
  responseHash: 'sha256:4',
  grantId: 'grt_1',
  grantScope: 'session',
  grantUntil: 1,
  prevHash: 'sha256:5',
  hash: 'sha256:6',
};
const EVERY_FIELD = auditLine(EVERY_FIELD_ENTRY);

describe('auditLine', () => {
  it('has every field docs/http-api.md lists for an audit entry, and no other', () => {
    const doc = readFileSync(new URL('../../docs/http-api.md', import.meta.url), 'utf8');
    const shape = /Each entry:\n`\{([^}]*)\}`/.exec(doc)?.[1] ?? '';
    const documented = [...shape.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(EVERY_FIELD).sort());
  });

  it('is hashed as its every field but the hash, in the order of their names', () => {
    expect(auditLineJson(EVERY_FIELD_ENTRY)).toBe(
      canonicalJson({ ...EVERY_FIELD, hash: undefined }),
    );
  });
});
