import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Test support: a `holdpoint` process's environment with a data directory of its own
 * (HOLDPOINT_DATA_DIR, a new temporary directory) unless `args` or `env` name one, so
 * that a command on the default SQLite store never writes into the repository. The
 * directory is removed once the process exits (call `removeOnExit`).
 */
export function ownDataDir(
  args: readonly string[],
  env: Record<string, string>,
): { env: Record<string, string>; removeOnExit(child: ChildProcess): void } {
  if (args.includes('--data-dir') || env.HOLDPOINT_DATA_DIR !== undefined) {
    return { env, removeOnExit: () => undefined };
  }
  const dir = mkdtempSync(join(tmpdir(), 'hp-data-'));
  return {
    env: { ...env, HOLDPOINT_DATA_DIR: dir },
    removeOnExit: (child) => {
      const remove = () => rmSync(dir, { recursive: true, force: true });
      if (child.exitCode !== null || child.signalCode !== null) remove();
      else child.once('exit', remove);
    },
  };
}
