import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

// KEYS: app state, user state (one slot: they share the app's hash tag). ARGV: the
// user state's lifetime, how many app-state pairs, how many user-state pairs, then
// those pairs. The user's state lives as long as the user has sessions: every read
// and write gives it a full session lifetime again.
const SHARED_LUA = `
local function hset(key, first, last)
  for i = first, last, 4000 do
    redis.call('HSET', key, unpack(ARGV, i, math.min(i + 3999, last)))
  end
end
local appPairs, userPairs = tonumber(ARGV[2]), tonumber(ARGV[3])
hset(KEYS[1], 4, 3 + 2 * appPairs)
hset(KEYS[2], 4 + 2 * appPairs, 3 + 2 * appPairs + 2 * userPairs)
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return { redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]) }
`;

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
 * writes and reads both, outside any session's slot.
 */
export class RedisSharedState {
  private readonly script: RedisScript;

  constructor(
    conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly userTtlMs: number,
  ) {
    this.script = conn.script('holdpointSharedState', SHARED_LUA);
  }

  /** Applies `change` (JSON values by key without prefix), then reads both scopes. */
  async apply(
    app: string,
    userId: string,
    change: SharedState = { app: {}, user: {} },
  ): Promise<SharedState> {
    const appPairs = Object.entries(change.app);
    const userPairs = Object.entries(change.user);
    const [appState, userState] = (await this.script(
      [this.keys.appState(app), this.keys.userState(app, userId)],
      [this.userTtlMs, appPairs.length, userPairs.length, ...appPairs.flat(), ...userPairs.flat()],
    )) as [string[], string[]];
    return { app: pairs(appState), user: pairs(userState) };
  }
}
