import type { StoredMemory, UserMemories } from '../user-memories.js';

/** Memories kept in this process, by app and user, then by source. */
export class MemoryUserMemories implements UserMemories {
  private readonly byUser = new Map<string, Map<string, StoredMemory[]>>();

  async put(app: string, userId: string, sourceId: string, memories: StoredMemory[]) {
    const key = JSON.stringify([app, userId]);
    const sources = this.byUser.get(key) ?? new Map<string, StoredMemory[]>();
    sources.set(sourceId, structuredClone(memories));
    this.byUser.set(key, sources);
  }

  async list(app: string, userId: string): Promise<StoredMemory[]> {
    const sources = this.byUser.get(JSON.stringify([app, userId]));
    return structuredClone([...(sources?.values() ?? [])].flat());
  }
}
