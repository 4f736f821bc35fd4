import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the SQLite scenarios keep their databases, and how to leave nothing behind. */
export interface SqliteTarget {
  /** The temporary directory holding every data directory handed out. */
  root: string;
  /** A new, empty data directory of its own; `close` removes it with the rest. */
  newDataDir(): string;
  close(): void;
}

/** A temporary directory under the system's, so no scenario writes into the repository. */
export function acquireSqlite(): SqliteTarget {
  const root = mkdtempSync(join(tmpdir(), 'hp-bench-sqlite-'));
  let next = 0;
  return {
    root,
    newDataDir() {
      const dir = join(root, `data-${next++}`);
      mkdirSync(dir);
      return dir;
    },
    close() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
