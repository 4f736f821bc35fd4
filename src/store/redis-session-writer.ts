import type { Pause, RunRecord } from '../core/types.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { BufferedEvent } from './redis-event-buffer.js';
import type { RedisKeys } from './redis-keys.js';
import type { JsonState, StoredSnapshot } from './redis-session-cache.js';
import type { SessionSnapshot, SessionWrites } from './transitions.js';

// One script, so a transition and the events of the run segment it ends are written
// together or not at all. The script does little on purpose: each call into Redis
// costs as much as the data it moves, so fields, list items and hash entries go in
// one variadic call each. Every declared key (Redis Cluster rule) gets the same
// expiry: max(now + session TTL, latest pause retention), which never shrinks, so a
// pause never outlives or predeceases its session.
//
// KEYS: the session's keys (RedisKeys.sessionKeys: meta, state, events, event
// index, audit). ARGV: version ('new' creates, '' skips the check), now, session TTL, pause
// retention ('' for none), then how many meta field/value pairs, audit lines, events
// (id, JSON) and state pairs follow, then those.
const WRITE_LUA = `
local function call(command, key, list, first, last)
  for i = first, last, 4000 do
    redis.call(command, key, unpack(list, i, math.min(i + 3999, last)))
  end
end
local read = redis.call('HMGET', KEYS[1], 'version', 'keepUntil', 'waitingUntil')
local stored = read[1]
if ARGV[1] == 'new' then
  if stored then return false end
  stored = '0'
elseif not stored or (ARGV[1] ~= '' and stored ~= ARGV[1]) then
  return false
end
-- Every write moves the version, event flushes included, so a copy of the session
-- held by any process is known to be current exactly when its version is.
local version = tonumber(stored) + 1
local keep = tonumber(read[2] or '0')
if ARGV[4] ~= '' and tonumber(ARGV[4]) > keep then keep = tonumber(ARGV[4]) end
local expireAt = math.max(tonumber(ARGV[2]) + tonumber(ARGV[3]), keep)
local metaPairs, auditLines, events, statePairs =
  tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local a = 9
redis.call('HSET', KEYS[1], 'version', version, 'keepUntil', keep)
call('HSET', KEYS[1], ARGV, a, a + 2 * metaPairs - 1)
a = a + 2 * metaPairs
call('RPUSH', KEYS[5], ARGV, a, a + auditLines - 1)
a = a + auditLines
if events > 0 then
  local ids = {}
  for i = 1, events do ids[i] = ARGV[a + 2 * i - 2] end
  local known = redis.call('HMGET', KEYS[4], unpack(ids))
  local added, addedIds = {}, {}
  for i = 1, events do
    local json = ARGV[a + 2 * i - 1]
    if known[i] then
      redis.call('LSET', KEYS[3], known[i], json)
    else
      added[#added + 1] = json
      addedIds[#addedIds + 1] = ids[i]
    end
  end
  if #added > 0 then
    local length = 0
    for i = 1, #added, 4000 do
      length = redis.call('RPUSH', KEYS[3], unpack(added, i, math.min(i + 3999, #added)))
    end
    local index = {}
    for i, id in ipairs(addedIds) do
      index[2 * i - 1] = id
      index[2 * i] = length - #added + i - 1
    end
    call('HSET', KEYS[4], index, 1, #index)
  end
  a = a + 2 * events
end
call('HSET', KEYS[2], ARGV, a, a + 2 * statePairs - 1)
for _, key in ipairs(KEYS) do redis.call('PEXPIREAT', key, expireAt) end
return { expireAt, version, tonumber(read[3] or '0') }
`;

/** The meta field holding the record of pause `pauseId`. */
export function pauseField(pauseId: string): string {
  return `pause:${pauseId}`;
}

/** The meta field holding the record of run `invocationId`. */
export function runField(invocationId: string): string {
  return `run:${invocationId}`;
}

// The records behind each stored snapshot, parsed at most once: a snapshot kept by
// the session cache is used by every transition until the next write. Transitions
// build new records and never change these.
const records = new WeakMap<StoredSnapshot, SessionSnapshot>();

function parsed<T>(json: string | undefined): T | undefined {
  return json === undefined ? undefined : (JSON.parse(json) as T);
}

/** The records of a stored snapshot. */
export function snapshotRecords(stored: StoredSnapshot): SessionSnapshot {
  let snapshot = records.get(stored);
  if (!snapshot) {
    snapshot = {
      meta: JSON.parse(stored.meta),
      pause: parsed(stored.pause),
      run: parsed(stored.run),
    };
    records.set(stored, snapshot);
  }
  return snapshot;
}

/** The snapshot a transition leaves, as stored (JSON). */
export function storedSnapshot(
  transition: VersionedWrites,
  json: (value: object) => string = JSON.stringify,
): StoredSnapshot {
  const { meta } = transition.writes;
  const { pause, run } = transition.current;
  const stored = { meta: json(meta), pause: pause && json(pause), run: run && json(run) };
  records.set(stored, { meta, pause, run });
  return stored;
}

/** A state transition to commit only if the session is still at `version`. */
export interface VersionedWrites {
  /** The version read, or `new` to create the session (its ADK record too) with the writes. */
  version: number | 'new';
  writes: SessionWrites;
  /** The session's current pause and run after the writes (the snapshot as written). */
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
    const writes = transition?.writes;
    const state: JsonState = Object.assign({}, initialState, ...events.map((e) => e.sessionState));
    // The current pause and run are usually among the records written: encode each once.
    const encoded = new Map<object, string>();
    const json = (value: object): string => {
      const known = encoded.get(value);
      if (known !== undefined) return known;
      const text = JSON.stringify(value);
      encoded.set(value, text);
      return text;
    };
    const metaFields: (string | number)[] = [];
    if (writes) {
      metaFields.push(
        'data',
        json(writes.meta),
        'pauseId',
        writes.meta.pauseId ?? '',
        'invocationId',
        writes.meta.invocationId ?? '',
      );
      for (const pause of writes.pauses ?? [])
        metaFields.push(pauseField(pause.pauseId), json(pause));
      if (writes.run) metaFields.push(runField(writes.run.invocationId), json(writes.run));
    }
    const created = transition?.version === 'new' ? writes?.meta : undefined;
    if (created) metaFields.push('appName', created.app, 'userId', created.userId);
    // A new session was last updated when it was created, until it has events.
    const lastUpdateTime = events.at(-1)?.timestamp ?? created?.createdAt;
    if (lastUpdateTime !== undefined) metaFields.push('lastUpdateTime', lastUpdateTime);
    const audit = (writes?.audit ?? []).map((line) => JSON.stringify(line));
    const stateFields = Object.entries(state).flat();
    const args = [
      transition ? String(transition.version) : '',
      Date.now(),
      this.sessionTtlMs,
      writes?.pauseRetainUntil ?? '',
      metaFields.length / 2,
      audit.length,
      events.length,
      stateFields.length / 2,
      ...metaFields,
      ...audit,
      ...events.flatMap((e) => [e.id, e.json]),
      ...stateFields,
    ];
    const reply = (await this.script(this.keys.sessionKeys(sessionId), args)) as
      | [number, number, number]
      | null;
    if (!reply) return undefined;
    const [expireAt, version, waitingUntil] = reply;
    return {
      expireAt,
      version,
      waitingUntil,
      snapshot: transition && storedSnapshot(transition, json),
    };
  }
}
