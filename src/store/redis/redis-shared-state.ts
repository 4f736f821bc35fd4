import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/** A flat HGETALL reply as an object. */
export function pairs(flat: string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) record[flat[i] as string] = flat[i + 1] as string;
  return record;
}

/** An app's `app:` state and one user's `user:` state, as stored (JSON values). */
export interface SharedState {
  app: Record<string, string>;
  user: Record<string, string>;
}

/**
 * What an app's sessions share in Redis: ADK `app:` and `user:` state. One script
 * writes both, outside any session's slot, with the markers that say they exist; the
 * session's read (read-session.lua) reads them.
 */
export class RedisSharedState {
  private readonly script: RedisScript;

  constructor(
    conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly userTtlMs: number,
  ) {
    this.script = conn.script('shared-state');
  }

  /** Applies `change` (JSON values by key without prefix). */
  async apply(app: string, userId: string, change: SharedState): Promise<void> {
    const appPairs = Object.entries(change.app);
    const userPairs = Object.entries(change.user);
    const k = this.keys;
    await this.script(
      [k.appState(app), k.userState(app, userId), k.appHasState(app), k.userKept(app, userId)],
      [
        Date.now(),
        this.userTtlMs,
        appPairs.length,
        userPairs.length,
        ...appPairs.flat(),
        ...userPairs.flat(),
      ],
    );
  }
}
