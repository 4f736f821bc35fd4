import { open, readFile } from 'node:fs/promises';
import type { HoldpointConfig } from '../config/config.js';
import { HoldpointError } from '../core/errors.js';
import type { AuditCheckpointOptions } from '../library/create-holdpoint.js';

/**
 * The audit checkpoints the config asks for (`--audit-signing-key` and a file or a
 * URL), the key read from its file; none without a key. VALIDATION_FAILED when the key
 * file cannot be read or the checkpoint file cannot be written.
 */
export async function auditCheckpointsFromConfig(
  config: HoldpointConfig,
): Promise<AuditCheckpointOptions | undefined> {
  if (config.auditSigningKey === undefined) return undefined;
  const key = await readFile(config.auditSigningKey, 'utf8').catch((error: unknown) => {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `Cannot read --audit-signing-key ${config.auditSigningKey}: ${(error as Error).message}`,
    );
  });
  const file = config.auditCheckpointFile;
  // Found out at start, not at the first checkpoint: a server that cannot keep its
  // checkpoints should not run as if it did.
  if (file !== undefined) {
    await open(file, 'a')
      .then((handle) => handle.close())
      .catch((error: unknown) => {
        throw new HoldpointError(
          'VALIDATION_FAILED',
          `Cannot write --audit-checkpoint-file ${file}: ${(error as Error).message}`,
        );
      });
  }
  return {
    key,
    file: config.auditCheckpointFile,
    url: config.auditCheckpointUrl,
    secret: config.auditCheckpointSecret,
    everySeconds: config.auditCheckpointSeconds,
  };
}
