import type { StoredMemory, UserMemories } from '../user-memories.js';
import type { SqlDriver } from './sql-driver.js';

/** User memories in `hp_memories` (skeleton: written by the sql-records part). */
export class SqlUserMemories implements UserMemories {
  constructor(
    readonly driver: SqlDriver,
    readonly ttlMs: number,
  ) {}
  put(_app: string, _userId: string, _sourceId: string, _memories: StoredMemory[]): Promise<void> {
    throw new Error('not written yet');
  }
  list(_app: string, _userId: string): Promise<StoredMemory[]> {
    throw new Error('not written yet');
  }
}
