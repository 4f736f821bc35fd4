import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { HoldpointError } from '../../core/errors.js';

/** The lock file of a SQLite data directory, beside its database. */
export const LOCK_FILE_NAME = 'holdpoint.lock';

/** SQLite's result code for a lock another connection holds (SQLITE_BUSY). */
const SQLITE_BUSY = 5;

/** Whether `error` is SQLite's "database is locked": someone else holds the lock. */
function isBusy(error: unknown): boolean {
  return ((error as { errcode?: number }).errcode ?? 0) % 256 === SQLITE_BUSY;
}

/** Who holds the lock, as its holder wrote it down, for the refusal's message. */
function holderOf(db: DatabaseSync): string {
  try {
    const holder = db.prepare('SELECT pid, host, since FROM holder').get();
    if (holder) return `pid ${holder.pid} on ${holder.host}, since ${holder.since}`;
  } catch {
    // Its holder is starting and has not written itself down yet.
  }
  return 'a process starting now';
}

/**
 * One server process per SQLite data directory. The process that serves it holds the
 * write lock of a small SQLite database of its own there, `holdpoint.lock`, for as long
 * as it runs: SQLite's locks are the operating system's file locks, so the lock goes
 * with the process however it ends (kill -9 included), and there is never a stale lock
 * to clear. A second process finds it held and is refused (STORE_IN_USE), told who holds
 * it. The database itself is not locked: `sqlite3 … ".backup …"`, `holdpoint db stats`
 * and `holdpoint resume` still read and write it beside the server.
 */
export class DataDirLock {
  private constructor(private readonly db: DatabaseSync) {}

  /**
   * Takes the lock of data directory `dir` (made when missing), or throws: STORE_IN_USE
   * when another process holds it; STORE_UNAVAILABLE when it cannot be taken (opening the
   * store first says more of a directory it cannot use: read-only, say).
   */
  static take(dir: string): DataDirLock {
    const path = join(dir, LOCK_FILE_NAME);
    let db: DatabaseSync | undefined;
    try {
      mkdirSync(dir, { recursive: true });
      // No wait for the lock: held means held by a running process.
      db = new DatabaseSync(path, { timeout: 0 });
      db.exec(
        'CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL)',
      );
      db.exec('BEGIN IMMEDIATE');
      db.prepare('INSERT OR REPLACE INTO holder (id, pid, host, since) VALUES (1, ?, ?, ?)').run(
        process.pid,
        hostname(),
        new Date().toISOString(),
      );
      // Committed, so a process refused can read who holds the lock; then held again at
      // once (whoever takes it in between holds it, and this process is refused).
      db.exec('COMMIT');
      db.exec('BEGIN IMMEDIATE');
      return new DataDirLock(db);
    } catch (error) {
      const holder = db && isBusy(error) ? holderOf(db) : undefined;
      db?.close();
      if (holder) {
        throw new HoldpointError(
          'STORE_IN_USE',
          `The SQLite data directory ${dir} is in use by another Holdpoint process (${holder}): ` +
            'one process serves a data directory at a time. Stop that one or give this one another ' +
            'data directory; for several instances, use PostgreSQL or Redis.',
          { data_dir: dir },
        );
      }
      const message = error instanceof Error ? error.message : String(error);
      throw new HoldpointError(
        'STORE_UNAVAILABLE',
        `The SQLite data directory ${dir} cannot be locked: ${message}`,
        { data_dir: dir },
      );
    }
  }

  /** Lets the lock go (closing its database ends the transaction that holds it). */
  release(): void {
    if (this.db.isOpen) this.db.close();
  }
}
