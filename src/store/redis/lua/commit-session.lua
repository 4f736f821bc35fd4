-- Commits one session: a compare-and-set transition (meta, pauses, runs, audit) with the
-- ADK events and session state of the segment it ends, and the index entries that commit
-- makes true or false, all at once or not at all. The script does little on purpose: each
-- call into Redis costs as much as the data it moves, so fields, list items and hash
-- entries go in one variadic call each, and what a commit would only repeat is not done.
--
-- Expiry: every session key expires at the meta's `keepUntil`, which never shrinks, so a
-- pause never outlives or predeceases its session. A commit moves it only when it falls
-- short of max(now + session TTL, pause retention), and then past that by the slack (a
-- 64th of the TTL): a session is kept at least its TTL after its last change and at most
-- the slack longer, and most commits set no expiry at all. The user's `user:` state, the
-- owner's list and the run's pointer are moved with it (so they cost nothing per commit
-- either); keys a commit creates get the meta's expiry.
--
-- Event ids: the meta's `events` field lists the session's event ids in list order
-- (space-separated; ADK's ids have no space), so an event appended again replaces itself
-- in place. A session written by an earlier release keeps them in the event-index hash
-- instead: its first commit here moves them into the field and deletes the hash.
--
-- KEYS[1..4]: the session's keys (RedisKeys.sessionKeys: meta, state, events, audit);
--   KEYS[5]: its legacy event index (RedisKeys.eventIndex); KEYS[6]: its watch marker
--   (RedisKeys.watched); KEYS[7]: the inbox's watch marker (RedisKeys.inboxWatched);
--   KEYS[8]: the owner's `user:` state (RedisKeys.userState); KEYS[9..]: the index keys the
--   index operations name (by their position in KEYS).
-- ARGV[1]: version ('new' creates); ARGV[2]: now (ms); ARGV[3]: session TTL (ms);
--   ARGV[4]: pause retention ('' for none); ARGV[5]: the expiry's slack (ms); ARGV[6]: '1'
--   when the commit may be inbox news (then the inbox's marker is read); ARGV[7..11]: how
--   many meta field/value pairs, audit lines, events (id, JSON), state pairs and index
--   operations follow; then those, in that order. An index operation is five values: its
--   name, the position of its key in KEYS and three arguments ('' where unused):
--     zadd  key score member ''       add or move an entry
--     zadd  key score member keep     the same, and keep the index until at least `keep` (ms)
--     zadd  key score member session  the same, and keep the index as long as the session
--                                     and the entry's score (set when the expiry moves)
--     zrem  key member '' ''          drop an entry
--     trim  key upTo '' ''            drop the entries scored up to `upTo`
--     set   key value keep ''         a pointer, kept until `keep` (ms)
--     set   key value session always  a pointer kept as long as the session
--     set   key value session moved   the same, written only when the session's expiry moves
--     hincrby key field by ''         move a hash field's count by `by`, never below 0
--     hnew  key fields keep ''        a hash (`fields`: a JSON array of field, value, ...)
--                                     written unless the key exists, kept until `keep` (ms)
-- Returns { new version, watched (0 or 1), inbox watched (0 or 1, -1 when not read) }, or
-- false when the session is not at ARGV[1] (or, for 'new', exists): then nothing was written.
local function call(command, key, list, first, last)
  local reply
  for i = first, last, 4000 do
    reply = redis.call(command, key, unpack(list, i, math.min(i + 3999, last)))
  end
  return reply
end
-- Sets `key` to expire at `at`, unless it expires later: GT, or NX for a key that has no
-- expiry yet (GT never sets one).
local function keepUntil(key, at)
  if redis.call('PEXPIREAT', key, at, 'GT') == 0 then
    redis.call('PEXPIREAT', key, at, 'NX')
  end
end
local read = redis.call('HMGET', KEYS[1], 'version', 'keepUntil', 'events', 'state')
if ARGV[1] == 'new' then
  if read[1] then return false end
elseif read[1] ~= ARGV[1] then
  return false
end
local version = tonumber(read[1] or '0') + 1
local kept = tonumber(read[2] or '0')
local now, ttl, slack = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local due = now + ttl
if ARGV[4] ~= '' and tonumber(ARGV[4]) > due then due = tonumber(ARGV[4]) end
local moved = kept < due
local expireAt = kept
if moved then expireAt = due + slack end
-- The session's event ids, in list order.
local eventIds = read[3]
local legacy, hadState = false, false
if eventIds == false then
  eventIds = ''
  if ARGV[1] ~= 'new' then
    -- Written by an earlier release: its event index, by position, and whether it has
    -- session state (read-session.lua reads the state only when the meta says so).
    local index = redis.call('HGETALL', KEYS[5])
    local ordered = {}
    for i = 1, #index, 2 do ordered[tonumber(index[i + 1]) + 1] = index[i] end
    eventIds = table.concat(ordered, ' ')
    legacy = #index > 0
    hadState = redis.call('EXISTS', KEYS[2]) == 1
  end
end
-- Keys this commit creates (the others expire with the meta already).
local created = {}
local metaPairs, auditLines, events, statePairs, operations =
  tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local a = 12
local first = a + 2 * metaPairs + auditLines + 2 * events + 2 * statePairs
for i = first, first + 5 * (operations - 1), 5 do
  local name = ARGV[i]
  if name ~= 'zadd' and name ~= 'zrem' and name ~= 'trim' and name ~= 'set' and name ~= 'hincrby' and name ~= 'hnew' then
    return redis.error_reply('unknown index operation ' .. tostring(name))
  end
end
local metaArgs = { 'version', version, 'keepUntil', expireAt }
for i = a, a + 2 * metaPairs - 1 do metaArgs[#metaArgs + 1] = ARGV[i] end
a = a + 2 * metaPairs
if auditLines > 0 then
  if call('RPUSH', KEYS[4], ARGV, a, a + auditLines - 1) == auditLines then
    created[#created + 1] = KEYS[4]
  end
end
a = a + auditLines
if events > 0 then
  -- Each known id's position, from the list of ids.
  local position, count = {}, 0
  for id in string.gmatch(eventIds, '%S+') do
    position[id] = count
    count = count + 1
  end
  local added, addedIds = {}, {}
  for i = 1, events do
    local id, json = ARGV[a + 2 * i - 2], ARGV[a + 2 * i - 1]
    if position[id] then
      redis.call('LSET', KEYS[3], position[id], json)
    else
      added[#added + 1] = json
      addedIds[#addedIds + 1] = id
      position[id] = count + #added - 1
    end
  end
  if #added > 0 then
    local length = 0
    for i = 1, #added, 4000 do
      length = redis.call('RPUSH', KEYS[3], unpack(added, i, math.min(i + 3999, #added)))
    end
    -- The events list is created by a session's first event.
    if length == #added then created[#created + 1] = KEYS[3] end
    local ids = table.concat(addedIds, ' ')
    if eventIds == '' then eventIds = ids else eventIds = eventIds .. ' ' .. ids end
  end
  a = a + 2 * events
end
metaArgs[#metaArgs + 1] = 'events'
metaArgs[#metaArgs + 1] = eventIds
if statePairs > 0 then
  call('HSET', KEYS[2], ARGV, a, a + 2 * statePairs - 1)
  if not (read[4] or hadState) then created[#created + 1] = KEYS[2] end
end
if (statePairs > 0 or hadState) and not read[4] then
  metaArgs[#metaArgs + 1] = 'state'
  metaArgs[#metaArgs + 1] = '1'
end
redis.call('HSET', KEYS[1], unpack(metaArgs))
if legacy then redis.call('DEL', KEYS[5]) end
if ARGV[1] == 'new' then
  redis.call('PEXPIREAT', KEYS[1], expireAt)
  for _, key in ipairs(created) do redis.call('PEXPIREAT', key, expireAt) end
elseif moved then
  for i = 1, 4 do redis.call('PEXPIREAT', KEYS[i], expireAt) end
elseif #created > 0 then
  -- `keepUntil` is the meta's expiry, but for a session of a release that kept only the
  -- latest pause retention there (no `events` field yet): then it is read.
  local at = expireAt
  if read[3] == false then at = redis.call('PEXPIRETIME', KEYS[1]) end
  for _, key in ipairs(created) do redis.call('PEXPIREAT', key, at) end
end
-- The user's state lives as long as their latest session (shared-state.lua gives it as
-- long when it is written).
if moved then redis.call('PEXPIREAT', KEYS[8], expireAt, 'GT') end
for i = first, first + 5 * (operations - 1), 5 do
  local name, key = ARGV[i], KEYS[tonumber(ARGV[i + 1])]
  if name == 'zadd' then
    redis.call('ZADD', key, ARGV[i + 2], ARGV[i + 3])
    if ARGV[i + 4] == 'session' then
      if moved then keepUntil(key, math.max(expireAt, tonumber(ARGV[i + 2]))) end
    elseif ARGV[i + 4] ~= '' then
      keepUntil(key, ARGV[i + 4])
    end
  elseif name == 'zrem' then
    redis.call('ZREM', key, ARGV[i + 2])
  elseif name == 'trim' then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[i + 2])
  elseif name == 'hincrby' then
    if redis.call('HINCRBY', key, ARGV[i + 2], ARGV[i + 3]) < 0 then
      redis.call('HSET', key, ARGV[i + 2], 0)
    end
  elseif name == 'set' then
    if ARGV[i + 3] ~= 'session' then
      redis.call('SET', key, ARGV[i + 2], 'PXAT', ARGV[i + 3])
    elseif moved or ARGV[i + 4] == 'always' then
      redis.call('SET', key, ARGV[i + 2], 'PXAT', expireAt)
    end
  elseif redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, unpack(cjson.decode(ARGV[i + 2])))
    redis.call('PEXPIREAT', key, ARGV[i + 3])
  end
end
if ARGV[6] == '1' then
  -- Both markers in one call (each is a string while it is there).
  local markers = redis.call('MGET', KEYS[6], KEYS[7])
  return { version, markers[1] and 1 or 0, markers[2] and 1 or 0 }
end
return { version, redis.call('EXISTS', KEYS[6]), -1 }
