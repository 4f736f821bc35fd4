import { open } from 'node:fs/promises';
import type { AuditCheckpoint } from '../../core/audit-checkpoint.js';
import type { CheckpointSink } from './audit-checkpointer.js';

/**
 * A sink appending each checkpoint to `path` as one NDJSON line (the file created with
 * mode 0600), synced to disk before it counts as written.
 */
export function checkpointFileSink(path: string): CheckpointSink {
  return {
    name: `file ${path}`,
    async write(checkpoint: AuditCheckpoint) {
      const file = await open(path, 'a', 0o600);
      try {
        await file.appendFile(`${JSON.stringify(checkpoint)}\n`);
        await file.sync();
      } finally {
        await file.close();
      }
    },
  };
}
