import { writeFile } from 'node:fs/promises';
import { newAuditKeyPair } from '../core/audit-checkpoint.js';
import { HoldpointError } from '../core/errors.js';

/** Where the public key of the private key at `out` goes: `key.pem` → `key.pub.pem`, else `<out>.pub`. */
export function publicKeyPath(out: string): string {
  return out.endsWith('.pem') ? `${out.slice(0, -'.pem'.length)}.pub.pem` : `${out}.pub`;
}

/**
 * `holdpoint audit keygen --out FILE`: a new Ed25519 key pair for signing audit
 * checkpoints, the private key written to `out` (mode 0600) and the public key beside
 * it (publicKeyPath). Neither file is overwritten: a key in use stays (VALIDATION_FAILED).
 */
export async function writeAuditKeyPair(
  out: string,
): Promise<{ privatePath: string; publicPath: string; keyId: string }> {
  const { privatePem, publicPem, keyId } = newAuditKeyPair();
  const publicPath = publicKeyPath(out);
  const write = (path: string, pem: string, mode: number) =>
    writeFile(path, pem, { mode, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        error.code === 'EEXIST'
          ? `${path} exists; a key is never overwritten (move it away first).`
          : `Cannot write ${path}: ${error.message}`,
      );
    });
  await write(out, privatePem, 0o600);
  await write(publicPath, publicPem, 0o644);
  return { privatePath: out, publicPath, keyId };
}
