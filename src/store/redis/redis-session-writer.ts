import { State } from '@google/adk';
import type { SessionAppend } from '../store.js';
import type { SessionWrites } from '../transitions.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { encodeRecord } from './redis-records.js';

// One script, so a transition and the events of the run segment it ends are written
// together or not at all. The script does little on purpose: each call into Redis
// costs as much as the data it moves, so fields, list items and hash entries go in
// one variadic call each. Every key of the session gets the same
// expiry: max(now + session TTL, latest pause retention), which never shrinks, so a
// pause never outlives or predeceases its session.
//
// The same script keeps the owner's list of sessions (KEYS[6]), so an entry is there
// exactly when a commit made it true: the session's entry is scored by when it leaves
// the list (its meta's updatedAt + session TTL, ARGV[10]); the key expires with its
// latest entry, so readers neither repair nor filter more than `score > now`. Only a
// new session adds an entry, so that is when entries whose time came by its updatedAt
// (ARGV[11]) are trimmed: the set holds the owner's listed sessions and those that
// left since the owner's last new one.
//
// KEYS: the session's keys (RedisKeys.sessionKeys: meta, state, events, event
// index, audit), then the owner's list (RedisKeys.sessionsOf; not in the session's
// slot). ARGV: version ('new' creates), now, session TTL, pause retention ('' for
// none), then how many meta field/value pairs, audit lines, events (id, JSON) and
// state pairs follow, then the session id, its list score and the trim bound
// (ARGV[9..11]), then the counted items.
const WRITE_LUA = `
local function call(command, key, list, first, last)
  for i = first, last, 4000 do
    redis.call(command, key, unpack(list, i, math.min(i + 3999, last)))
  end
end
local read = redis.call('HMGET', KEYS[1], 'version', 'keepUntil')
local stored = read[1]
if ARGV[1] == 'new' then
  if stored then return false end
  stored = '0'
elseif stored ~= ARGV[1] then
  return false
end
local version = tonumber(stored) + 1
local keep = tonumber(read[2] or '0')
if ARGV[4] ~= '' and tonumber(ARGV[4]) > keep then keep = tonumber(ARGV[4]) end
local expireAt = math.max(tonumber(ARGV[2]) + tonumber(ARGV[3]), keep)
local metaPairs, auditLines, events, statePairs =
  tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local a = 12
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
for i = 1, #KEYS - 1 do redis.call('PEXPIREAT', KEYS[i], expireAt) end
redis.call('ZADD', KEYS[6], ARGV[10], ARGV[9])
if ARGV[1] == 'new' then redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', ARGV[11]) end
local latest = redis.call('ZRANGE', KEYS[6], -1, -1, 'WITHSCORES')
if latest[2] then redis.call('PEXPIREAT', KEYS[6], latest[2]) end
return version
`;

/** The meta field holding the record of pause `pauseId`. */
export function pauseField(pauseId: string): string {
  return `pause:${pauseId}`;
}

/** The meta field holding the record of run `invocationId`. */
export function runField(invocationId: string): string {
  return `run:${invocationId}`;
}

function toJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** ADK state split by where it lives: the session's own keys, and the app's shared ones. */
export interface SplitState {
  session: Record<string, string>;
  app: Record<string, string>;
  user: Record<string, string>;
}

/** Splits state into session, `app:` and `user:` scopes as JSON (`temp:` is never stored). */
export function splitState(state: Record<string, unknown>): SplitState {
  const split: SplitState = { session: {}, app: {}, user: {} };
  for (const [key, value] of Object.entries(state)) {
    if (key.startsWith(State.APP_PREFIX)) {
      split.app[key.slice(State.APP_PREFIX.length)] = toJson(value);
    } else if (key.startsWith(State.USER_PREFIX)) {
      split.user[key.slice(State.USER_PREFIX.length)] = toJson(value);
    } else if (!key.startsWith(State.TEMP_PREFIX)) {
      split.session[key] = toJson(value);
    }
  }
  return split;
}

/**
 * Writes one session atomically: a compare-and-set transition (meta, pauses, runs,
 * audit) with the ADK events and session state of the segment it ends, and the
 * session's entry in its owner's list.
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
   * Writes `writes`, keeping `commitIds` (the session's latest commits, this one last)
   * in the meta's `commit` field, if the
   * session is at `version` (`new`: creates it). Returns the new version, or undefined
   * when the session moved on, is gone, or (`new`) exists.
   */
  async write(
    sessionId: string,
    version: number | 'new',
    writes: SessionWrites,
    commitIds: string[],
  ): Promise<number | undefined> {
    const { meta } = writes;
    const append: SessionAppend = writes.append ?? { events: [], state: {} };
    const metaFields: (string | number)[] = [
      'data',
      encodeRecord('meta', meta),
      'pauseId',
      meta.pauseId ?? '',
      'invocationId',
      meta.invocationId ?? '',
      'commit',
      commitIds.join(' '),
    ];
    for (const pause of writes.pauses ?? []) {
      metaFields.push(pauseField(pause.pauseId), encodeRecord('pause', pause));
    }
    for (const run of writes.runs ?? []) {
      metaFields.push(runField(run.invocationId), encodeRecord('run', run));
    }
    if (version === 'new') metaFields.push('appName', meta.app, 'userId', meta.userId);
    // A new session was last updated when it was created, until it has events.
    const lastUpdateTime =
      append.events.at(-1)?.timestamp ?? (version === 'new' ? meta.createdAt : undefined);
    if (lastUpdateTime !== undefined) metaFields.push('lastUpdateTime', lastUpdateTime);
    const audit = writes.audit.map((line) => encodeRecord('audit', line));
    const stateFields = Object.entries(splitState(append.state).session).flat();
    const args = [
      String(version),
      Date.now(),
      this.sessionTtlMs,
      writes.pauseRetainUntil ?? '',
      metaFields.length / 2,
      audit.length,
      append.events.length,
      stateFields.length / 2,
      sessionId,
      meta.updatedAt + this.sessionTtlMs,
      meta.updatedAt,
      ...metaFields,
      ...audit,
      ...append.events.flatMap((event) => [event.id, encodeRecord('event', event)]),
      ...stateFields,
    ];
    const keys = [...this.keys.sessionKeys(sessionId), this.keys.sessionsOf(meta.userId)];
    const reply = (await this.script(keys, args)) as number | null;
    return reply ?? undefined;
  }
}
