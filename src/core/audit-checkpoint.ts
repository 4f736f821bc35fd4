import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { HoldpointError } from './errors.js';
import { canonicalJson } from './hash.js';

/** A session's audit chain head as a checkpoint names it: the hash of its last line. */
export interface CheckpointHead {
  session_id: string;
  hash: string;
}

/**
 * One signed checkpoint: the latest audit heads of the sessions that changed since the
 * one before, `at` an ISO time, signed with Ed25519 over the canonical JSON of the
 * record without `signature` (base64). `key_id` names the public key that verifies it.
 */
export interface AuditCheckpoint {
  v: 1;
  at: string;
  key_id: string;
  heads: CheckpointHead[];
  signature: string;
}

/** The server's audit signing key: the private key, its public key and that key's id. */
export interface AuditSigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  keyId: string;
}

function invalidKey(why: string): HoldpointError {
  return new HoldpointError('VALIDATION_FAILED', `Not an Ed25519 key: ${why}`);
}

/**
 * `ed25519:` and the first 16 hex digits of the SHA-256 of the public key (its DER
 * SubjectPublicKeyInfo): names which key signed a checkpoint, so a verifier given the
 * keys of several rotations picks the right one.
 */
export function auditKeyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return `ed25519:${createHash('sha256').update(der).digest('hex').slice(0, 16)}`;
}

/**
 * The signing key in `pem` (an Ed25519 private key, PKCS#8 PEM, as `holdpoint audit
 * keygen` writes it). VALIDATION_FAILED for anything else, so a server given the wrong
 * file stops before it runs.
 */
export function auditSigningKeyFrom(pem: string | KeyObject): AuditSigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = typeof pem === 'string' ? createPrivateKey(pem) : pem;
  } catch (error) {
    throw invalidKey(`it is not a private key PEM (${(error as Error).message})`);
  }
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw invalidKey(`it is a ${privateKey.asymmetricKeyType ?? 'secret'} ${privateKey.type} key`);
  }
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: auditKeyId(publicKey) };
}

/**
 * The public key in `pem`: an Ed25519 public key PEM, or the private key (its public
 * half is taken). VALIDATION_FAILED for anything else.
 */
export function auditPublicKeyFrom(pem: string): KeyObject {
  let key: KeyObject;
  try {
    // createPublicKey takes a private key PEM too, and answers its public half.
    key = createPublicKey(pem);
  } catch (error) {
    throw invalidKey(`it is not a public or private key PEM (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw invalidKey(`it is a ${key.asymmetricKeyType} key`);
  }
  return key;
}

/** A new Ed25519 key pair as PEM: the private key (PKCS#8) and the public key (SPKI). */
export function newAuditKeyPair(): { privatePem: string; publicPem: string; keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
    keyId: auditKeyId(publicKey),
  };
}

/** What the signature covers: the record without `signature`, as canonical JSON. */
function signedBytes(record: Omit<AuditCheckpoint, 'signature'>): Buffer {
  return Buffer.from(canonicalJson({ ...record, signature: undefined }));
}

/** The checkpoint of `heads` at `at` (ms since the epoch), signed with `key`. */
export function signAuditCheckpoint(
  heads: readonly CheckpointHead[],
  at: number,
  key: AuditSigningKey,
): AuditCheckpoint {
  const unsigned = {
    v: 1 as const,
    at: new Date(at).toISOString(),
    key_id: key.keyId,
    heads: heads.map(({ session_id, hash }) => ({ session_id, hash })),
  };
  const signature = sign(null, signedBytes(unsigned), key.privateKey).toString('base64');
  return { ...unsigned, signature };
}

function isHead(value: unknown): value is CheckpointHead {
  const head = value as Partial<CheckpointHead> | null;
  return typeof head?.session_id === 'string' && typeof head.hash === 'string';
}

/**
 * Whether `record` (a checkpoint as read back from a file or a request) is a
 * checkpoint signed by one of `publicKeys`: the checkpoint when it is, else why not.
 */
export function checkAuditCheckpoint(
  record: unknown,
  publicKeys: readonly KeyObject[],
): { ok: true; checkpoint: AuditCheckpoint } | { ok: false; reason: string } {
  const r = record as Partial<AuditCheckpoint> | null;
  const version = (r as { v?: unknown } | null)?.v;
  if (typeof version === 'number' && version !== 1) {
    return {
      ok: false,
      reason: `it is a checkpoint of format v${version}, which this release does not read: verify it with a later release`,
    };
  }
  if (
    typeof r !== 'object' ||
    r === null ||
    r.v !== 1 ||
    typeof r.at !== 'string' ||
    typeof r.key_id !== 'string' ||
    !Array.isArray(r.heads) ||
    !r.heads.every(isHead) ||
    typeof r.signature !== 'string'
  ) {
    return { ok: false, reason: 'it is not a checkpoint ({"v":1,"at","key_id","heads",…})' };
  }
  const key = publicKeys.find((k) => auditKeyId(k) === r.key_id);
  if (!key) return { ok: false, reason: `it is signed by key ${r.key_id}, which was not given` };
  const checkpoint = r as AuditCheckpoint;
  const valid = verify(
    null,
    signedBytes(checkpoint),
    key,
    Buffer.from(checkpoint.signature, 'base64'),
  );
  return valid
    ? { ok: true, checkpoint }
    : { ok: false, reason: 'its signature does not match its content: it was changed' };
}
