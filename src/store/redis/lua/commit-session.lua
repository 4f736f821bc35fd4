-- Commits one session: a compare-and-set transition (meta, pauses, runs, audit) with the
-- ADK events and session state of the segment it ends, and the index entries that commit
-- makes true or false, all at once or not at all. The script does little on purpose: each
-- call into Redis costs as much as the data it moves, so the record is one string, list
-- items and hash entries go in one variadic call each, and what a commit would only
-- repeat is not done.
--
-- The session record (RedisKeys.session, read by redis-session-record.ts) is one string
-- of lines (no record has a raw newline): '2' (its layout), version, keepUntil, the
-- latest commit ids, the event ids in list order (so an event appended again replaces
-- itself), flags ('s': the session has state; 'a': it has an archive), app and user (as
-- JSON strings), lastUpdateTime, the latest pause id and run id ('' for none), the meta
-- record, the latest pause's record and the latest run's. A pause or run that stops being
-- the latest moves to the archive hash (`pause:<id>`, `run:<id>`).
--
-- Expiry: every session key expires at `keepUntil`, which never shrinks, so a pause never
-- outlives or predeceases its session. A commit moves it only when it falls short of
-- max(now + session TTL, pause retention), and then past that by the slack (a 64th of the
-- TTL): a session is kept at least its TTL after its last change and at most the slack
-- longer, and most commits set no expiry but the record's own (SET … PXAT). The user's
-- `user:` state, the owner's list and the run's pointer are moved with it; keys a commit
-- creates get the record's expiry.
--
-- KEYS[1..5]: the session's keys (RedisKeys.sessionKeys: record, state, events, audit,
--   archive); KEYS[6]: its record as an earlier release kept it (RedisKeys.meta);
--   KEYS[7]: its watch marker (RedisKeys.watched); KEYS[8]: the inbox's watch marker
--   (RedisKeys.inboxWatched); KEYS[9]: the owner's `user:` state (RedisKeys.userState);
--   KEYS[10..]: the index keys the index operations name (by their position in KEYS).
-- ARGV[1]: version ('new' creates); ARGV[2]: now (ms); ARGV[3]: session TTL (ms);
--   ARGV[4]: pause retention ('' for none); ARGV[5]: the expiry's slack (ms); ARGV[6]: '1'
--   when the commit may be inbox news (then the inbox's marker is read); ARGV[7]: the
--   latest commit ids; ARGV[8]: the meta record; ARGV[9]: the latest pause id; ARGV[10]:
--   its record ('' when this commit does not write it); ARGV[11], ARGV[12]: the same of
--   the latest run; ARGV[13]: lastUpdateTime ('' to keep); ARGV[14], ARGV[15]: app and
--   user (JSON strings, for 'new'); ARGV[16..20]: how many archive field/value pairs,
--   audit lines, events (id, JSON), state pairs and index operations follow; then those,
--   in that order. An index operation is five values: its name, the position of its key
--   in KEYS and three arguments ('' where unused):
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
-- Returns { new version, watched (0 or 1), inbox watched (0 or 1, -1 when not read) };
-- false when the session is not at ARGV[1] (or, for 'new', exists): then nothing was
-- written; 'legacy' when an earlier release's record must be moved over first
-- (upgrade-session.lua), also writing nothing.
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
-- The record's lines (see above).
local VERSION, KEEP, COMMITS, EVENTS, FLAGS, APP, USER, UPDATED, PAUSE_ID, RUN_ID, DATA, PAUSE, RUN =
  2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14
-- The record and the watch markers in one call (the inbox's only for a commit that may be
-- news; each marker is a string while it is there).
local record, watched, inboxWatched
if ARGV[1] == 'new' then
  if redis.call('EXISTS', KEYS[1], KEYS[6]) > 0 then return false end
  record = { '2', '0', '0', '', '', '', ARGV[14], ARGV[15], '', '', '', '', '', '' }
  local markers = redis.call('MGET', KEYS[7], KEYS[8])
  watched, inboxWatched = markers[1], markers[2]
else
  local read
  if ARGV[6] == '1' then
    read = redis.call('MGET', KEYS[1], KEYS[7], KEYS[8])
  else
    read = redis.call('MGET', KEYS[1], KEYS[7])
  end
  if not read[1] then
    if redis.call('EXISTS', KEYS[6]) == 1 then return 'legacy' end
    return false
  end
  watched, inboxWatched = read[2], read[3]
  record = {}
  for line in string.gmatch(read[1] .. '\n', '([^\n]*)\n') do record[#record + 1] = line end
  if record[VERSION] ~= ARGV[1] then return false end
end
local version = tonumber(record[VERSION]) + 1
local kept = tonumber(record[KEEP])
local now, ttl, slack = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local due = now + ttl
if ARGV[4] ~= '' and tonumber(ARGV[4]) > due then due = tonumber(ARGV[4]) end
local moved = kept < due
local expireAt = kept
if moved then expireAt = due + slack end
local flags = record[FLAGS]
-- Keys this commit creates (the others expire with the record already).
local created = {}
local archivePairs, auditLines, events, statePairs, operations =
  tonumber(ARGV[16]), tonumber(ARGV[17]), tonumber(ARGV[18]), tonumber(ARGV[19]), tonumber(ARGV[20])
local a = 21
local first = a + 2 * archivePairs + auditLines + 2 * events + 2 * statePairs
for i = first, first + 5 * (operations - 1), 5 do
  local name = ARGV[i]
  if name ~= 'zadd' and name ~= 'zrem' and name ~= 'trim' and name ~= 'set' and name ~= 'hincrby' and name ~= 'hnew' then
    return redis.error_reply('unknown index operation ' .. tostring(name))
  end
end
-- The latest pause and run: a record this commit does not write is kept while it stays
-- the latest, archived when it stops being it, and taken back from the archive when an
-- earlier one becomes the latest again.
local archive, fetch = {}, {}
local function latest(idLine, recordLine, id, written, prefix)
  if record[idLine] ~= '' and record[idLine] ~= id and record[recordLine] ~= '' then
    archive[#archive + 1] = prefix .. record[idLine]
    archive[#archive + 1] = record[recordLine]
  end
  if written ~= '' then
    record[recordLine] = written
  elseif record[idLine] ~= id then
    record[recordLine] = ''
    if id ~= '' then fetch[#fetch + 1] = { recordLine, prefix .. id } end
  end
  record[idLine] = id
end
latest(PAUSE_ID, PAUSE, ARGV[9], ARGV[10], 'pause:')
latest(RUN_ID, RUN, ARGV[11], ARGV[12], 'run:')
for _, wanted in ipairs(fetch) do
  record[wanted[1]] = redis.call('HGET', KEYS[5], wanted[2]) or ''
end
for i = a, a + 2 * archivePairs - 1 do archive[#archive + 1] = ARGV[i] end
a = a + 2 * archivePairs
if #archive > 0 then
  call('HSET', KEYS[5], archive, 1, #archive)
  if not string.find(flags, 'a', 1, true) then
    flags = flags .. 'a'
    created[#created + 1] = KEYS[5]
  end
end
if auditLines > 0 then
  if call('RPUSH', KEYS[4], ARGV, a, a + auditLines - 1) == auditLines then
    created[#created + 1] = KEYS[4]
  end
end
a = a + auditLines
if events > 0 then
  -- A known id is found in the list of ids (a plain find); its position, counted only
  -- then, is how many ids come before it. Ids this commit appends are known from here on.
  local eventIds = record[EVENTS]
  local spaced = ' ' .. eventIds .. ' '
  local added, addedIds, appended = {}, {}, {}
  for i = 1, events do
    local id, json = ARGV[a + 2 * i - 2], ARGV[a + 2 * i - 1]
    local at = string.find(spaced, ' ' .. id .. ' ', 1, true)
    if at then
      local _, before = string.gsub(string.sub(spaced, 2, at), ' ', '')
      redis.call('LSET', KEYS[3], before, json)
    elseif appended[id] then
      added[appended[id]] = json
    else
      added[#added + 1] = json
      addedIds[#addedIds + 1] = id
      appended[id] = #added
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
    if eventIds == '' then record[EVENTS] = ids else record[EVENTS] = eventIds .. ' ' .. ids end
  end
  a = a + 2 * events
end
if statePairs > 0 then
  call('HSET', KEYS[2], ARGV, a, a + 2 * statePairs - 1)
  if not string.find(flags, 's', 1, true) then
    flags = flags .. 's'
    created[#created + 1] = KEYS[2]
  end
end
record[VERSION] = version
record[KEEP] = expireAt
record[COMMITS] = ARGV[7]
record[FLAGS] = flags
if ARGV[13] ~= '' then record[UPDATED] = ARGV[13] end
record[DATA] = ARGV[8]
redis.call('SET', KEYS[1], table.concat(record, '\n'), 'PXAT', expireAt)
if moved and ARGV[1] ~= 'new' then
  for i = 2, 5 do redis.call('PEXPIREAT', KEYS[i], expireAt) end
else
  for _, key in ipairs(created) do redis.call('PEXPIREAT', key, expireAt) end
end
-- The user's state lives as long as their latest session (shared-state.lua gives it as
-- long when it is written).
if moved then redis.call('PEXPIREAT', KEYS[9], expireAt, 'GT') end
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
local inbox = -1
if ARGV[6] == '1' then inbox = inboxWatched and 1 or 0 end
return { version, watched and 1 or 0, inbox }
