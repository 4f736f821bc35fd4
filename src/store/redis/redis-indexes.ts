import { pauseAudiences } from '../../core/approvers.js';
import type { Pause } from '../../core/types.js';
import type { PageCursor } from '../store.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/** How long an audience's index outlives the latest expiry it holds. */
const AUDIENCE_INDEX_GRACE_MS = 60_000;

// KEYS: the paused index, then ARGV[5] audience indexes, then the pause's approval keys.
// ARGV: session id, the pause's expiry, until when the approval keys are kept, until
// when the audience indexes are kept (each lives as long as its latest entry), how
// many audience indexes.
const ADD_LUA = `
local audiences = tonumber(ARGV[5])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
for i = 2, audiences + 1 do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1])
  redis.call('PEXPIREAT', KEYS[i], ARGV[4], 'NX')
  redis.call('PEXPIREAT', KEYS[i], ARGV[4], 'GT')
end
for i = audiences + 2, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'PXAT', ARGV[3]) end
return 1
`;
// Takes a session out of the indexes only while its entry is still the one scored by
// that pause's expiry: a session that paused again since stays.
const REMOVE_LUA = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('ZSCORE', key, ARGV[1]) or '-1') == tonumber(ARGV[2]) then
    redis.call('ZREM', key, ARGV[1])
  end
end
return 1
`;
// A page of an index, by score from ARGV[1] up to ARGV[5] ('' for no end), or right after the cursor
// entry (member ARGV[2] scored ARGV[3]) when given: by rank while that entry is still
// there, else after it in (score, member) order, as the index sorts (an index the cursor
// did not come from may hold other members with the cursor's score). ARGV[4]: how
// many. Replies member, score, member, ...
const PAGE_LUA = `
local limit = tonumber(ARGV[4])
local max = ARGV[5] == '' and math.huge or tonumber(ARGV[5])
local found
if ARGV[2] ~= '' then
  local score = redis.call('ZSCORE', KEYS[1], ARGV[2])
  if score and tonumber(score) == tonumber(ARGV[3]) then
    local rank = redis.call('ZRANK', KEYS[1], ARGV[2])
    found = redis.call('ZRANGE', KEYS[1], rank + 1, rank + limit, 'WITHSCORES')
  else
    found = {}
    local offset, after = 0, tonumber(ARGV[3])
    while #found < 2 * limit do
      local chunk = redis.call('ZRANGE', KEYS[1], ARGV[3], '+inf', 'BYSCORE', 'LIMIT', offset,
        limit, 'WITHSCORES')
      if #chunk == 0 then break end
      for i = 1, #chunk, 2 do
        if #found < 2 * limit and (tonumber(chunk[i + 1]) > after or chunk[i] > ARGV[2]) then
          found[#found + 1] = chunk[i]
          found[#found + 1] = chunk[i + 1]
        end
      end
      offset = offset + limit
    end
  end
else
  found = redis.call('ZRANGE', KEYS[1], ARGV[1], '+inf', 'BYSCORE', 'LIMIT', 0, limit,
    'WITHSCORES')
end
local page = {}
for i = 1, #found, 2 do
  if tonumber(found[i + 1]) > max then break end
  page[#page + 1] = found[i]
  page[#page + 1] = found[i + 1]
end
return page
`;
// A page of an owner's sessions (KEYS[1], RedisKeys.sessionsOf), highest score first,
// scored above ARGV[1] (now: lower ones have left the list): from the top, or after the
// cursor entry (member ARGV[2] scored ARGV[3]) in (score, member) order, wherever that
// entry went since. ARGV[4]: how many. Replies member, score, member, ...
const OWNED_PAGE_LUA = `
local limit = tonumber(ARGV[4])
local top = ARGV[2] == '' and '+inf' or ARGV[3]
local page, offset = {}, 0
while #page < 2 * limit do
  local chunk = redis.call('ZRANGE', KEYS[1], top, '(' .. ARGV[1], 'BYSCORE', 'REV', 'LIMIT',
    offset, limit, 'WITHSCORES')
  for i = 1, #chunk, 2 do
    local after = ARGV[2] == '' or tonumber(chunk[i + 1]) < tonumber(ARGV[3]) or chunk[i] < ARGV[2]
    if after and #page < 2 * limit then
      page[#page + 1] = chunk[i]
      page[#page + 1] = chunk[i + 1]
    end
  end
  if #chunk < 2 * limit then break end
  offset = offset + limit
end
return page
`;
// KEYS: the running index, the run's key. ARGV: session id, its lease's end, until
// when the run's key is kept.
const ADD_RUNNING_LUA = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('SET', KEYS[2], ARGV[1], 'PXAT', ARGV[3])
return 1
`;
// Takes a session out of the running index unless it entered running again since
// (a later segment's entry is scored past the ended segment's lease).
const REMOVE_RUNNING_LUA = `
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') <= tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1
`;
// The sweep belongs to ARGV[1] for ARGV[2] ms if it holds it already or nobody does.
const TAKE_SWEEP_TURN_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
return 0
`;

/** An index entry: a session id and its pause's expiry. */
export interface IndexEntry {
  sessionId: string;
  expiresAt: number;
}

function entries(flat: string[]): IndexEntry[] {
  const found: IndexEntry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    found.push({ sessionId: flat[i] as string, expiresAt: Number(flat[i + 1]) });
  }
  return found;
}

/**
 * The indexes that find paused sessions without scanning: all of them and each
 * owner's, as sorted sets by expiry, and each approval id's session. They are
 * written ahead of the commit that enters a pause and cleared after the one that
 * ends it; an entry left by a failed commit or a crash points at a session that is
 * not paused, which every reader checks, and the sweep clears it once it is due.
 */
export class RedisIndexes {
  private readonly addScript: RedisScript;
  private readonly removeScript: RedisScript;
  private readonly pageScript: RedisScript;
  private readonly ownedPageScript: RedisScript;
  private readonly sweepTurnScript: RedisScript;
  private readonly addRunningScript: RedisScript;
  private readonly removeRunningScript: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {
    this.addScript = conn.script('holdpointIndexPause', ADD_LUA);
    this.removeScript = conn.script('holdpointUnindexPause', REMOVE_LUA);
    this.pageScript = conn.script('holdpointIndexPage', PAGE_LUA);
    this.ownedPageScript = conn.script('holdpointOwnedPage', OWNED_PAGE_LUA);
    this.sweepTurnScript = conn.script('holdpointTakeSweepTurn', TAKE_SWEEP_TURN_LUA);
    this.addRunningScript = conn.script('holdpointIndexRunning', ADD_RUNNING_LUA);
    this.removeRunningScript = conn.script('holdpointUnindexRunning', REMOVE_RUNNING_LUA);
  }

  /** Indexes a session entering running `invocationId` under a lease ending at `until`. */
  addRunning(
    sessionId: string,
    invocationId: string,
    until: number,
    keepUntil: number,
  ): Promise<unknown> {
    return this.addRunningScript(
      [this.keys.running(), this.keys.run(invocationId)],
      [sessionId, until, keepUntil],
    );
  }

  /** Drops a session whose segment (lease ending at `until`) ended. */
  removeRunning(sessionId: string, until: number): Promise<unknown> {
    return this.removeRunningScript([this.keys.running()], [sessionId, until]);
  }

  /** Moves a running session's entry to its lease's current end. */
  touchRunning(sessionId: string, until: number): Promise<unknown> {
    return this.conn.client.zadd(this.keys.running(), 'XX', 'GT', until, sessionId);
  }

  /** A page of running sessions whose entry is scored by `now`, or after `after`. */
  async lapsed(now: number, after: PageCursor | undefined, limit: number): Promise<IndexEntry[]> {
    const flat = (await this.pageScript(
      [this.keys.running()],
      ['-inf', after?.member ?? '', after?.score ?? '', limit, now],
    )) as string[];
    return entries(flat);
  }

  /** The session a run belongs to, if it was indexed. */
  async runSession(invocationId: string): Promise<string | undefined> {
    return (await this.conn.client.get(this.keys.run(invocationId))) ?? undefined;
  }

  /**
   * Indexes a pending pause, for everyone and for each audience that may decide it, and
   * its approvals (kept until `keepUntil`).
   */
  add(pause: Pause, keepUntil: number): Promise<unknown> {
    const k = this.keys;
    const audiences = pauseAudiences(pause).map((audience) => k.pausedFor(audience));
    return this.addScript(
      [k.paused(), ...audiences, ...pause.approvals.map((a) => k.approval(a.approvalId))],
      [
        pause.sessionId,
        pause.expiresAt,
        keepUntil,
        pause.expiresAt + AUDIENCE_INDEX_GRACE_MS,
        audiences.length,
      ],
    );
  }

  /**
   * Drops a session's entries from the global index and `audiences`' if they are still
   * those of the pause that expires at `expiresAt`; an audience index left out ends
   * with its latest entry anyway, and its readers drop what is not paused.
   */
  remove(sessionId: string, audiences: string[], expiresAt: number): Promise<unknown> {
    const keys = [this.keys.paused(), ...audiences.map((a) => this.keys.pausedFor(a))];
    return this.removeScript(keys, [sessionId, expiresAt]);
  }

  /** Entries due by `now`, earliest first. */
  async due(now: number, limit: number): Promise<IndexEntry[]> {
    const flat = await this.conn.client.zrange(
      this.keys.paused(),
      '-inf',
      String(now),
      'BYSCORE',
      'LIMIT',
      0,
      limit,
      'WITHSCORES',
    );
    return entries(flat);
  }

  /** A page of the paused index (one audience's, or all), from `min` or after `after`. */
  async page(
    audience: string | undefined,
    min: number,
    after: PageCursor | undefined,
    limit: number,
  ): Promise<IndexEntry[]> {
    const key = audience === undefined ? this.keys.paused() : this.keys.pausedFor(audience);
    const flat = (await this.pageScript(
      [key],
      [min, after?.member ?? '', after?.score ?? '', limit, ''],
    )) as string[];
    return entries(flat);
  }

  /**
   * A page of `userId`'s sessions, most recently updated first, still listed at `now`,
   * after `after` when given; each entry's `expiresAt` is when it leaves the list.
   */
  async owned(
    userId: string,
    now: number,
    after: PageCursor | undefined,
    limit: number,
  ): Promise<IndexEntry[]> {
    const flat = (await this.ownedPageScript(
      [this.keys.sessionsOf(userId)],
      [now, after?.member ?? '', after?.score ?? '', limit],
    )) as string[];
    return entries(flat);
  }

  /** The session an approval id belongs to, if it was indexed. */
  async approvalSession(approvalId: string): Promise<string | undefined> {
    return (await this.conn.client.get(this.keys.approval(approvalId))) ?? undefined;
  }

  /** Takes or keeps the sweep for `ms`; false while another instance holds it. */
  async takeSweepTurn(owner: string, ms: number): Promise<boolean> {
    return (await this.sweepTurnScript([this.keys.sweeper()], [owner, ms])) === 1;
  }
}
