import type { Pause, RunRecord } from '../core/types.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { BufferedEvent } from './redis-event-buffer.js';
import type { RedisKeys } from './redis-keys.js';
import type { JsonState, StoredSnapshot } from './redis-session-cache.js';
import type { SessionWrites } from './transitions.js';

// One script, so a transition and the events of the run segment it ends are written
// together or not at all. Every key it touches is declared (Redis Cluster rule), and
// every declared key gets the same expiry: max(now + session TTL, latest pause
// retention), which never shrinks, so a pause never outlives or predeceases its meta.
const WRITE_LUA = `
local stored = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == 'new' then
  if stored then return false end
  local meta = cjson.decode(ARGV[2])
  redis.call('HSET', KEYS[2], 'id', meta.sessionId, 'appName', meta.app, 'userId', meta.userId)
  stored = '0'
elseif not stored or (ARGV[1] ~= '' and stored ~= ARGV[1]) then
  return false
end
-- Every write moves the version, event flushes included, so a copy of the session
-- held by any process is known to be current exactly when its version is.
local version = tonumber(stored) + 1
local keep = tonumber(redis.call('HGET', KEYS[1], 'keepUntil') or '0')
if ARGV[5] ~= '' and tonumber(ARGV[5]) > keep then keep = tonumber(ARGV[5]) end
local expireAt = math.max(tonumber(ARGV[3]) + tonumber(ARGV[4]), keep)
redis.call('HSET', KEYS[1], 'version', version, 'keepUntil', keep)
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'data', ARGV[2])
  -- The current pause and run ride in the meta hash too, so a snapshot is one HMGET.
  if ARGV[12] ~= '' then redis.call('HSET', KEYS[1], 'pause', ARGV[12]) else redis.call('HDEL', KEYS[1], 'pause') end
  if ARGV[13] ~= '' then redis.call('HSET', KEYS[1], 'run', ARGV[13]) else redis.call('HDEL', KEYS[1], 'run') end
end
local k = 9
local a = 14
for _ = 1, tonumber(ARGV[6]) do
  redis.call('SET', KEYS[k], ARGV[a])
  redis.call('SADD', KEYS[7], KEYS[k])
  k = k + 1
  a = a + 1
end
if ARGV[7] == '1' then
  redis.call('SET', KEYS[k], ARGV[a])
  redis.call('SADD', KEYS[8], KEYS[k])
  a = a + 1
end
for _ = 1, tonumber(ARGV[8]) do
  redis.call('RPUSH', KEYS[6], ARGV[a])
  a = a + 1
end
for _ = 1, tonumber(ARGV[9]) do
  local index = redis.call('HGET', KEYS[5], ARGV[a])
  if index then
    redis.call('LSET', KEYS[4], index, ARGV[a + 1])
  else
    local length = redis.call('RPUSH', KEYS[4], ARGV[a + 1])
    redis.call('HSET', KEYS[5], ARGV[a], length - 1)
  end
  a = a + 2
end
for _ = 1, tonumber(ARGV[10]) do
  redis.call('HSET', KEYS[3], ARGV[a], ARGV[a + 1])
  a = a + 2
end
if ARGV[11] ~= '' then redis.call('HSET', KEYS[2], 'lastUpdateTime', ARGV[11]) end
for _, key in ipairs(KEYS) do redis.call('PEXPIREAT', key, expireAt) end
return { expireAt, version, tonumber(redis.call('HGET', KEYS[1], 'waitingUntil') or '0') }
`;

/** A state transition to commit only if the session is still at `version`. */
export interface VersionedWrites {
  /** The version read, or `new` to create the session (its ADK record too) with the writes. */
  version: number | 'new';
  writes: SessionWrites;
  /** The session's current pause and run after the writes (for the meta hash). */
  current: { pause?: Pause; run?: RunRecord };
}

/** What a write that Redis accepted left behind. */
export interface WriteResult {
  /** When the session's keys now expire. */
  expireAt: number;
  version: number;
  /** Until when a subscriber said it waits on the session's relay (0: nobody). */
  waitingUntil: number;
  /** The snapshot as written; undefined for an event flush. */
  snapshot?: StoredSnapshot;
}

/**
 * Writes one session atomically: a compare-and-set transition (meta, pauses, run,
 * audit) and the ADK events buffered for the session with their session state.
 */
export class RedisSessionWriter {
  private readonly script: RedisScript;

  constructor(
    conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly sessionTtlMs: number,
  ) {
    this.script = conn.script('holdpointWriteSession', WRITE_LUA);
  }

  /**
   * Writes `events` and, when given, `transition`; a new session starts with
   * `initialState` (session-scoped, JSON values). Returns what was written, or
   * undefined when the session is gone, no longer at the version, or (`new`) exists.
   */
  async write(
    sessionId: string,
    transition: VersionedWrites | undefined,
    events: BufferedEvent[],
    initialState: JsonState = {},
  ): Promise<WriteResult | undefined> {
    const k = this.keys;
    const writes = transition?.writes;
    const pauses = writes?.pauses ?? [];
    const run = writes?.run;
    const state: JsonState = Object.assign({}, initialState, ...events.map((e) => e.sessionState));
    // A new session was last updated when it was created, until it has events.
    const lastUpdateTime =
      events.at(-1)?.timestamp ?? (transition?.version === 'new' ? writes?.meta.createdAt : '');
    // The current pause and run are usually among the records written: encode each once.
    const encoded = new Map<object, string>();
    const json = (value: object): string => {
      const known = encoded.get(value);
      if (known !== undefined) return known;
      const text = JSON.stringify(value);
      encoded.set(value, text);
      return text;
    };
    const snapshot: StoredSnapshot | undefined = transition && {
      meta: json(transition.writes.meta),
      pause: transition.current.pause && json(transition.current.pause),
      run: transition.current.run && json(transition.current.run),
    };
    const keys = [
      k.meta(sessionId),
      k.adk(sessionId),
      k.state(sessionId),
      k.events(sessionId),
      k.eventIndex(sessionId),
      k.audit(sessionId),
      k.pauses(sessionId),
      k.runs(sessionId),
      ...pauses.map((p) => k.pause(sessionId, p.pauseId)),
      ...(run ? [k.run(sessionId, run.invocationId)] : []),
      // The current pause and run stay as long as the meta that points at them.
      ...(writes?.meta.pauseId ? [k.pause(sessionId, writes.meta.pauseId)] : []),
      ...(writes?.meta.invocationId ? [k.run(sessionId, writes.meta.invocationId)] : []),
    ];
    const args = [
      transition ? String(transition.version) : '',
      snapshot?.meta ?? '',
      Date.now(),
      this.sessionTtlMs,
      writes?.pauseRetainUntil ?? '',
      pauses.length,
      run ? 1 : 0,
      writes?.audit.length ?? 0,
      events.length,
      Object.keys(state).length,
      lastUpdateTime ?? '',
      snapshot?.pause ?? '',
      snapshot?.run ?? '',
      ...pauses.map(json),
      ...(run ? [json(run)] : []),
      ...(writes?.audit ?? []).map((line) => JSON.stringify(line)),
      ...events.flatMap((e) => [e.id, e.json]),
      ...Object.entries(state).flat(),
    ];
    const reply = (await this.script(keys, args)) as [number, number, number] | null;
    if (!reply) return undefined;
    const [expireAt, version, waitingUntil] = reply;
    return { expireAt, version, waitingUntil, snapshot };
  }
}
