-- Commits one session: a compare-and-set transition (meta, pauses, runs, audit) with the
-- ADK events and session state of the segment it ends, and the index entries that commit
-- makes true or false, all at once or not at all. The script does little on purpose: each
-- call into Redis costs as much as the data it moves, so fields, list items and hash
-- entries go in one variadic call each. Every session key gets the same expiry:
-- max(now + session TTL, latest pause retention), which never shrinks, so a pause never
-- outlives or predeceases its session. The meta's `keepUntil` holds it (a release before
-- this one kept there only the latest pause retention, which the keys outlive): a commit
-- that does not move it gives the keys it may have created the meta's expiry, and leaves
-- the others be.
--
-- KEYS[1..5]: the session's keys (RedisKeys.sessionKeys: meta, state, events, event index,
--   audit); KEYS[6]: its watch marker (RedisKeys.watched); KEYS[7]: the inbox's watch
--   marker (RedisKeys.inboxWatched); KEYS[8..]: the index keys the index operations name
--   (by their position in KEYS).
-- ARGV[1]: version ('new' creates); ARGV[2]: now (ms); ARGV[3]: session TTL (ms);
--   ARGV[4]: pause retention ('' for none); ARGV[5..9]: how many meta field/value pairs,
--   audit lines, events (id, JSON), state pairs and index operations follow; then those,
--   in that order. An index operation is five values: its name, the position of its key
--   in KEYS and three arguments ('' where unused):
--     zadd  key score member ''    add or move an entry
--     zadd  key score member keep  the same, and keep the index until at least `keep` (ms)
--     zrem  key member '' ''       drop an entry
--     trim  key upTo '' ''         drop the entries scored up to `upTo`
--     set   key value keep ''      a pointer, kept until `keep` (ms)
--     hincrby key field by ''      move a hash field's count by `by`, never below 0
--     hnew  key fields keep ''     a hash (`fields`: a JSON array of field, value, ...)
--                                  written unless the key exists, kept until `keep` (ms)
-- Returns { new version, watched (0 or 1), inbox watched (0 or 1) }, or false when the session is not at ARGV[1]
-- (or, for 'new', exists): then nothing was written.
local function call(command, key, list, first, last)
  local reply
  for i = first, last, 4000 do
    reply = redis.call(command, key, unpack(list, i, math.min(i + 3999, last)))
  end
  return reply
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
local kept = tonumber(read[2] or '0')
local expireAt = math.max(tonumber(ARGV[2]) + tonumber(ARGV[3]), kept)
if ARGV[4] ~= '' and tonumber(ARGV[4]) > expireAt then expireAt = tonumber(ARGV[4]) end
-- Keys this commit may create (the others expire with the meta already).
local created = {}
local metaPairs, auditLines, events, statePairs, operations =
  tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local a = 10
local first = a + 2 * metaPairs + auditLines + 2 * events + 2 * statePairs
for i = first, first + 5 * (operations - 1), 5 do
  local name = ARGV[i]
  if name ~= 'zadd' and name ~= 'zrem' and name ~= 'trim' and name ~= 'set' and name ~= 'hincrby' and name ~= 'hnew' then
    return redis.error_reply('unknown index operation ' .. tostring(name))
  end
end
-- One call: the meta's fields are a handful (its record, pointers, the pauses and runs
-- this commit writes), far below what unpack can take at once.
redis.call('HSET', KEYS[1], 'version', version, 'keepUntil', expireAt,
  unpack(ARGV, a, a + 2 * metaPairs - 1))
a = a + 2 * metaPairs
if auditLines > 0 and call('RPUSH', KEYS[5], ARGV, a, a + auditLines - 1) == auditLines then
  created[#created + 1] = KEYS[5]
end
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
    -- The events and their index are created together, by a session's first event.
    if length == #added then
      created[#created + 1] = KEYS[3]
      created[#created + 1] = KEYS[4]
    end
  end
  a = a + 2 * events
end
if statePairs > 0 then
  call('HSET', KEYS[2], ARGV, a, a + 2 * statePairs - 1)
  created[#created + 1] = KEYS[2]
end
if expireAt > kept then
  for i = 1, 5 do redis.call('PEXPIREAT', KEYS[i], expireAt) end
elseif #created > 0 then
  local at = redis.call('PEXPIRETIME', KEYS[1])
  for _, key in ipairs(created) do redis.call('PEXPIREAT', key, at) end
end
for i = first, first + 5 * (operations - 1), 5 do
  local name, key = ARGV[i], KEYS[tonumber(ARGV[i + 1])]
  if name == 'zadd' then
    redis.call('ZADD', key, ARGV[i + 2], ARGV[i + 3])
    -- Later only (GT), or the first expiry of a key that has none (NX: GT never sets one).
    if ARGV[i + 4] ~= '' and redis.call('PEXPIREAT', key, ARGV[i + 4], 'GT') == 0 then
      redis.call('PEXPIREAT', key, ARGV[i + 4], 'NX')
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
    redis.call('SET', key, ARGV[i + 2], 'PXAT', ARGV[i + 3])
  elseif redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, unpack(cjson.decode(ARGV[i + 2])))
    redis.call('PEXPIREAT', key, ARGV[i + 3])
  end
end
return { version, redis.call('EXISTS', KEYS[6]), redis.call('EXISTS', KEYS[7]) }
