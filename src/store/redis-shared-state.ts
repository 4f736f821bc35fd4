import type { Redis } from 'ioredis';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import type { JsonState, SharedState } from './redis-session-cache.js';

// KEYS: the user's session set, the app's user set, app state, user state (one slot:
// they share the app's hash tag). ARGV: session id ('' to register nothing), user id,
// app name, the change channel, how many app-state pairs, how many user-state pairs,
// then those pairs. A change is announced on the channel, so every process drops
// its copy of what changed.
const SHARED_LUA = `
if ARGV[1] ~= '' then
  redis.call('SADD', KEYS[1], ARGV[1])
  redis.call('SADD', KEYS[2], ARGV[2])
end
local a = 7
for _ = 1, tonumber(ARGV[5]) do
  redis.call('HSET', KEYS[3], ARGV[a], ARGV[a + 1])
  a = a + 2
end
for _ = 1, tonumber(ARGV[6]) do
  redis.call('HSET', KEYS[4], ARGV[a], ARGV[a + 1])
  a = a + 2
end
if tonumber(ARGV[5]) > 0 then redis.call('PUBLISH', ARGV[4], ARGV[3]) end
if tonumber(ARGV[6]) > 0 then redis.call('PUBLISH', ARGV[4], ARGV[3] .. '\\n' .. ARGV[2]) end
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

/** Users whose state is kept at most; the oldest read go first. */
const MAX_KEPT = 10_000;

function userKey(appName: string, userId: string): string {
  return `${appName}\n${userId}`;
}

/**
 * What an app's sessions share in Redis: ADK `app:` and `user:` state, and the
 * lists of users and sessions. One command registers, writes and reads them.
 *
 * The state last read of each user is kept in this process, so a run can start
 * without reading it. Every change is announced on a channel this process
 * listens to (its own connection): an announced change drops the copy, and so
 * does any gap in listening (a lost connection), during which nothing is served
 * from the copies. A copy is never older than the announcement of the latest change.
 */
export class RedisSharedState {
  private readonly script: RedisScript;
  private subscriber?: Redis;
  private listening = false;
  /** Moves with every announcement and every gap; a read that saw it move is not kept. */
  private generation = 0;
  private readonly known = new Map<string, SharedState>();

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {
    this.script = conn.script('holdpointSharedState', SHARED_LUA);
  }

  /** The app's and the user's state as last read here, if no change was announced since. */
  cached(appName: string, userId: string): SharedState | undefined {
    this.listen();
    return this.listening ? this.known.get(userKey(appName, userId)) : undefined;
  }

  /** Applies `change`, then reads the app's and the user's state. */
  async apply(appName: string, userId: string, change: SharedChange = {}): Promise<SharedState> {
    this.listen();
    const k = this.keys;
    const appPairs = Object.entries(change.appState ?? {});
    const userPairs = Object.entries(change.userState ?? {});
    const generation = this.generation;
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
        appName,
        k.sharedStateChanged(),
        appPairs.length,
        userPairs.length,
        ...appPairs.flat(),
        ...userPairs.flat(),
      ],
    )) as [string[], string[]];
    const state = { appState: pairs(appState), userState: pairs(userState) };
    if (this.listening && generation === this.generation) {
      const key = userKey(appName, userId);
      this.known.delete(key);
      this.known.set(key, state);
      for (const oldest of this.known.keys()) {
        if (this.known.size <= MAX_KEPT) break;
        this.known.delete(oldest);
      }
    }
    return state;
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.forget();
  }

  /** Starts listening for announced changes, once; copies are served only while it holds. */
  private listen(): void {
    if (this.subscriber) return;
    // A connection in subscriber mode can do nothing else, hence its own.
    const subscriber = this.conn.client.duplicate({
      enableAutoPipelining: false,
      enableOfflineQueue: true,
    });
    const channel = this.keys.sharedStateChanged();
    subscriber.on('error', () => {});
    subscriber.on('close', () => this.forget());
    subscriber.on('ready', () => {
      subscriber.subscribe(channel).then(
        () => {
          this.generation += 1;
          this.listening = true;
        },
        () => this.forget(),
      );
    });
    subscriber.on('message', (_: string, changed: string) => {
      this.generation += 1;
      if (changed.includes('\n')) {
        this.known.delete(changed);
        return;
      }
      for (const key of this.known.keys()) {
        if (key.startsWith(`${changed}\n`)) this.known.delete(key);
      }
    });
    this.subscriber = subscriber;
  }

  private forget(): void {
    this.listening = false;
    this.generation += 1;
    this.known.clear();
  }
}
