import type { Content } from '@google/genai';

/** One memory as stored: an event's content, who made it, when, and its metadata. */
export interface StoredMemory {
  content: Content;
  author?: string;
  /** ISO 8601. */
  timestamp?: string;
  /** The event's `customMetadata` (e.g. `user_id`, `domain_id`, `source_url`). */
  metadata?: Record<string, unknown>;
}

/**
 * What ADK's memory service keeps, per app and user, in the store: the memories of each
 * source (a session added to memory), so Redis mode keeps them across restarts and
 * instances like the rest of a user's state. They live as long as the user's `user:`
 * state: every write gives them a full session lifetime again.
 */
export interface UserMemories {
  /** Keeps `memories` as everything `sourceId` gave the user, replacing what it gave before. */
  put(app: string, userId: string, sourceId: string, memories: StoredMemory[]): Promise<void>;
  /** Every memory of the user, source by source. */
  list(app: string, userId: string): Promise<StoredMemory[]>;
}
