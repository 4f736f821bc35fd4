import type {
  BaseMemoryService,
  MemoryEntry,
  SearchMemoryRequest,
  SearchMemoryResponse,
  Session,
} from '@google/adk';
import { HoldpointError } from '../../core/errors.js';
import type { StoredMemory, UserMemories } from '../../store/user-memories.js';

/** The most memories one session may add, and the longest text one may hold. */
const MAX_MEMORIES_PER_SESSION = 500;
const MAX_MEMORY_CHARS = 20_000;

/** The words of a text, lower case, as ADK's in-memory service matches them. */
function wordsOf(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(Boolean));
}

function textOf(memory: StoredMemory): string {
  return (memory.content.parts ?? [])
    .map((part) => part.text ?? '')
    .filter(Boolean)
    .join(' ');
}

/**
 * ADK's memory service on Holdpoint's store: what a session adds is kept per app and
 * user (in Redis with the Redis store, so it outlives restarts and is shared by
 * instances), and a search finds the memories sharing a word with the query, as ADK's
 * `InMemoryMemoryService` does. Adding a session again replaces what it added before.
 */
export class StoreMemoryService implements BaseMemoryService {
  constructor(private readonly memories: UserMemories) {}

  async addSessionToMemory(session: Session): Promise<void> {
    const kept: StoredMemory[] = session.events
      .filter((event) => (event.content?.parts?.length ?? 0) > 0)
      .map((event) => ({
        content: event.content ?? {},
        author: event.author,
        timestamp: new Date(event.timestamp).toISOString(),
        metadata: event.customMetadata,
      }));
    if (kept.length > MAX_MEMORIES_PER_SESSION) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        `A session adds at most ${MAX_MEMORIES_PER_SESSION} memories; this one has ${kept.length}.`,
      );
    }
    if (kept.some((memory) => textOf(memory).length > MAX_MEMORY_CHARS)) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        `A memory holds at most ${MAX_MEMORY_CHARS} characters of text.`,
      );
    }
    await this.memories.put(session.appName, session.userId, session.id, kept);
  }

  async searchMemory(request: SearchMemoryRequest): Promise<SearchMemoryResponse> {
    const wanted = wordsOf(request.query);
    const stored = await this.memories.list(request.appName, request.userId);
    const found: MemoryEntry[] = [];
    for (const memory of stored) {
      const words = wordsOf(textOf(memory));
      if (![...wanted].some((word) => words.has(word))) continue;
      found.push({ content: memory.content, author: memory.author, timestamp: memory.timestamp });
    }
    return { memories: found };
  }
}
