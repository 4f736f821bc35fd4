import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  auditKeyId,
  auditPublicKeyFrom,
  auditSigningKeyFrom,
  checkAuditCheckpoint,
  newAuditKeyPair,
  signAuditCheckpoint,
} from './audit-checkpoint.js';

const AT = Date.parse('2026-11-22T12:00:00.000Z');
const HEADS = [
  { session_id: 's-1', hash: `sha256:${'a'.repeat(64)}` },
  { session_id: 's-2', hash: `sha256:${'b'.repeat(64)}` },
];

describe('audit checkpoints', () => {
  const pair = newAuditKeyPair();
  const key = auditSigningKeyFrom(pair.privatePem);
  const publicKey = auditPublicKeyFrom(pair.publicPem);

  it('are signed records of the heads, named by the key that verifies them', () => {
    const checkpoint = signAuditCheckpoint(HEADS, AT, key);
    expect(checkpoint).toEqual({
      v: 1,
      at: '2026-11-22T12:00:00.000Z',
      key_id: pair.keyId,
      heads: HEADS,
      signature: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
    });
    expect(pair.keyId).toMatch(/^ed25519:[0-9a-f]{16}$/);
    expect(auditKeyId(publicKey)).toBe(pair.keyId);
    // Read back as a verifier reads a file: the signature covers the canonical JSON.
    const read = JSON.parse(JSON.stringify(checkpoint));
    expect(checkAuditCheckpoint(read, [publicKey])).toEqual({ ok: true, checkpoint: read });
    // The private key verifies too: its public half is taken.
    expect(checkAuditCheckpoint(read, [auditPublicKeyFrom(pair.privatePem)]).ok).toBe(true);
  });

  it('fail when a head, the time or a field is changed, or the key is not given', () => {
    const checkpoint = signAuditCheckpoint(HEADS, AT, key);
    const changedHead = {
      ...checkpoint,
      heads: [HEADS[0], { session_id: 's-2', hash: `sha256:${'c'.repeat(64)}` }],
    };
    const changedTime = { ...checkpoint, at: '2026-11-22T13:00:00.000Z' };
    const added = { ...checkpoint, note: 'fine' };
    for (const record of [changedHead, changedTime, added]) {
      expect(checkAuditCheckpoint(record, [publicKey])).toEqual({
        ok: false,
        reason: 'its signature does not match its content: it was changed',
      });
    }
    const other = auditPublicKeyFrom(newAuditKeyPair().publicPem);
    expect(checkAuditCheckpoint(checkpoint, [other])).toEqual({
      ok: false,
      reason: `it is signed by key ${pair.keyId}, which was not given`,
    });
    // Key rotation: any of the keys given may have signed it.
    expect(checkAuditCheckpoint(checkpoint, [other, publicKey]).ok).toBe(true);
    expect(checkAuditCheckpoint({ ...checkpoint, heads: 'all' }, [publicKey])).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not a checkpoint/),
    });
    // A format this release does not know is named, not taken for garbage.
    expect(checkAuditCheckpoint({ ...checkpoint, v: 2 }, [publicKey])).toEqual({
      ok: false,
      reason:
        'it is a checkpoint of format v2, which this release does not read: verify it with a later release',
    });
  });

  it('take Ed25519 keys only', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const rsaPem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(() => auditSigningKeyFrom(rsaPem)).toThrow(/Not an Ed25519 key: it is a rsa private/);
    expect(() => auditSigningKeyFrom(pair.publicPem)).toThrow(/not a private key PEM/);
    expect(() => auditSigningKeyFrom('not a key')).toThrow(/Not an Ed25519 key/);
    expect(() => auditPublicKeyFrom(rsaPem)).toThrow(/it is a rsa key/);
  });
});
