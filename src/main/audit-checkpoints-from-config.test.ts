import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { newAuditKeyPair } from '../core/audit-checkpoint.js';
import { auditCheckpointsFromConfig } from './audit-checkpoints-from-config.js';

const SECRET = 'a-checkpoint-secret-of-at-least-32-chars';
const dir = mkdtempSync(join(tmpdir(), 'hp-audit-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const keyFile = join(dir, 'key.pem');
const { privatePem } = newAuditKeyPair();
writeFileSync(keyFile, privatePem);

describe('audit checkpoints from the settings', () => {
  it('are off without a key', async () => {
    expect(await auditCheckpointsFromConfig(loadConfig([], {}))).toBeUndefined();
  });

  it('read the key from its file, with the sinks and the interval', async () => {
    const config = loadConfig(
      ['--audit-signing-key', keyFile, '--audit-checkpoint-file', join(dir, 'cp.ndjson')],
      {
        HOLDPOINT_AUDIT_CHECKPOINT_URL: 'https://audit.example.com/in',
        HOLDPOINT_AUDIT_CHECKPOINT_SECRET: SECRET,
        HOLDPOINT_AUDIT_CHECKPOINT_SECONDS: '15',
      },
    );
    expect(await auditCheckpointsFromConfig(config)).toEqual({
      key: privatePem,
      file: join(dir, 'cp.ndjson'),
      url: 'https://audit.example.com/in',
      secret: SECRET,
      everySeconds: 15,
    });
    expect(config.auditCheckpointSeconds).toBe(15);
    expect(loadConfig([], {}).auditCheckpointSeconds).toBe(60);
  });

  it('refuse a key without a place, a place without a key, and a URL without its secret', () => {
    expect(() => loadConfig(['--audit-signing-key', keyFile], {})).toThrow(
      /audit checkpoints need a key and a place/,
    );
    expect(() => loadConfig(['--audit-checkpoint-file', 'cp.ndjson'], {})).toThrow(
      /audit checkpoints need a key and a place/,
    );
    expect(() =>
      loadConfig(
        ['--audit-signing-key', keyFile, '--audit-checkpoint-url', 'https://a.example/'],
        {},
      ),
    ).toThrow(/--audit-checkpoint-url needs --audit-checkpoint-secret/);
  });

  it('say which key file cannot be read', async () => {
    const config = loadConfig(
      ['--audit-signing-key', join(dir, 'missing.pem'), '--audit-checkpoint-file', 'cp.ndjson'],
      {},
    );
    await expect(auditCheckpointsFromConfig(config)).rejects.toThrow(
      /Cannot read --audit-signing-key .*missing\.pem/,
    );
  });

  it('say at start which checkpoint file cannot be written, not at the first checkpoint', async () => {
    const file = join(dir, 'no-such-dir', 'cp.ndjson');
    const config = loadConfig(
      ['--audit-signing-key', keyFile, '--audit-checkpoint-file', file],
      {},
    );
    await expect(auditCheckpointsFromConfig(config)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining(`Cannot write --audit-checkpoint-file ${file}`),
    });
  });
});
