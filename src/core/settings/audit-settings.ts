import { z } from 'zod';
import { setting } from './setting.js';

const text = z.string().min(1);

/** Signed checkpoints of the audit chains, kept outside the store ([audit.md](audit.md)). */
export const AUDIT_SETTINGS = {
  auditSigningKey: setting({
    schema: text,
    flag: 'audit-signing-key',
    env: 'HOLDPOINT_AUDIT_SIGNING_KEY',
    placeholder: 'FILE',
    doc: 'an Ed25519 private key (PEM; `holdpoint audit keygen` makes one) the audit checkpoints are signed with; never put it where the store is ([audit.md](audit.md#keys))',
  }),
  auditCheckpointFile: setting({
    schema: text,
    flag: 'audit-checkpoint-file',
    env: 'HOLDPOINT_AUDIT_CHECKPOINT_FILE',
    placeholder: 'FILE',
    doc: 'where signed audit checkpoints are appended (NDJSON, synced); needs `--audit-signing-key`',
  }),
  auditCheckpointUrl: setting({
    schema: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }),
    flag: 'audit-checkpoint-url',
    env: 'HOLDPOINT_AUDIT_CHECKPOINT_URL',
    placeholder: 'URL',
    doc: 'where signed audit checkpoints are POSTed, signed like webhooks with `--audit-checkpoint-secret`; needs `--audit-signing-key`',
  }),
  auditCheckpointSecret: setting({
    schema: z.string().min(32),
    flag: 'audit-checkpoint-secret',
    env: 'HOLDPOINT_AUDIT_CHECKPOINT_SECRET',
    placeholder: 'SECRET',
    doc: 'the HMAC-SHA256 key checkpoint POSTs are signed with (at least 32 characters; prefer the environment)',
  }),
  auditCheckpointSeconds: setting({
    schema: z.number().int().positive(),
    default: 60,
    flag: 'audit-checkpoint-seconds',
    env: 'HOLDPOINT_AUDIT_CHECKPOINT_SECONDS',
    placeholder: 'SECONDS',
    doc: 'how often the audit heads that changed are checkpointed (and once at shutdown); lines written since the last checkpoint are not covered yet',
  }),
};
