import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import type { JsonState, SharedState } from './redis-session-cache.js';

// KEYS: the user's session set, the app's user set, app state, user state (one slot:
// they share the app's hash tag). ARGV: session id ('' to register nothing), user id,
// how many app-state pairs, how many user-state pairs, then those pairs.
const SHARED_LUA = `
if ARGV[1] ~= '' then
  redis.call('SADD', KEYS[1], ARGV[1])
  redis.call('SADD', KEYS[2], ARGV[2])
end
local a = 5
for _ = 1, tonumber(ARGV[3]) do
  redis.call('HSET', KEYS[3], ARGV[a], ARGV[a + 1])
  a = a + 2
end
for _ = 1, tonumber(ARGV[4]) do
  redis.call('HSET', KEYS[4], ARGV[a], ARGV[a + 1])
  a = a + 2
end
return { redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4]) }
`;

/** A flat HGETALL reply as an object. */
export function pairs(flat: string[]): JsonState {
  const record: JsonState = {};
  for (let i = 0; i + 1 < flat.length; i += 2) record[flat[i] as string] = flat[i + 1] as string;
  return record;
}

/** What to change in an app's shared keys before reading its shared state. */
export interface SharedChange {
  /** A new session of the user, to list under the user and the app. */
  sessionId?: string;
  appState?: JsonState;
  userState?: JsonState;
}

/**
 * What an app's sessions share in Redis: ADK `app:` and `user:` state, and the
 * lists of users and sessions. One command registers, writes and reads them.
 */
export class RedisSharedState {
  private readonly script: RedisScript;

  constructor(
    conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {
    this.script = conn.script('holdpointSharedState', SHARED_LUA);
  }

  /** Applies `change`, then reads the app's and the user's state. */
  async apply(appName: string, userId: string, change: SharedChange = {}): Promise<SharedState> {
    const k = this.keys;
    const appPairs = Object.entries(change.appState ?? {});
    const userPairs = Object.entries(change.userState ?? {});
    const [appState, userState] = (await this.script(
      [
        k.userSessions(appName, userId),
        k.appUsers(appName),
        k.appState(appName),
        k.userState(appName, userId),
      ],
      [
        change.sessionId ?? '',
        userId,
        appPairs.length,
        userPairs.length,
        ...appPairs.flat(),
        ...userPairs.flat(),
      ],
    )) as [string[], string[]];
    return { appState: pairs(appState), userState: pairs(userState) };
  }
}
