-- Commits one session: a compare-and-set transition (meta, pauses, runs, audit) with the
-- ADK events and session state of the segment it ends, and the index entries that commit
-- makes true or false, all at once or not at all. The script does little on purpose: each
-- call into Redis costs as much as the data it moves, so the record is one string, list
-- items and hash entries go in one variadic call each, what a commit would only repeat is
-- not done, and what it needs to know is read in one MGET.
--
-- The session record (RedisKeys.record, read by redis-session-record.ts) is one string of
-- lines (no record has a raw newline): '3' (its layout), version, keepUntil, the latest
-- commit ids, the session log's tokens (see below), flags ('s': the session has state;
-- 'a': it has an archive), app and user (as JSON strings), lastUpdateTime, the latest
-- pause id and run id ('' for none), the meta record, the latest pause's record and the
-- latest run's. A pause or run that stops being the latest moves to the archive hash
-- (`pause:<id>`, `run:<id>`).
--
-- The session log (RedisKeys.events) is one list of the session's ADK events and audit
-- lines in the order they were stored, so a commit with both appends them in one RPUSH.
-- The record's tokens say what each item is, in list order: an event's id (so an event
-- appended again replaces itself), '.' for an audit line. A session an earlier release
-- stored (layout 2, its audit lines in a list of their own) is moved over first
-- (upgrade-session.lua).
--
-- Expiry: every session key expires at `keepUntil`, which never shrinks, so a pause never
-- outlives or predeceases its session. A commit moves it only when it falls short of
-- max(now + session TTL, pause retention), and then past that by the slack (a 64th of the
-- TTL): a session is kept at least its TTL after its last change and at most the slack
-- longer, and most commits set no expiry but the record's own (SET … PXAT). Keys a commit
-- creates get the record's expiry.
--
-- Keys that must outlive entries of many sessions (the owner's list and the user's
-- `user:` state; an audience's paused index) are kept by a marker: a string holding until
-- when the keys it stands for are kept at least, expiring then. The marker is read with
-- the record; only when it falls short are the keys' expiries moved, to the slack past
-- what is needed, and the marker with them. The owner's list is trimmed of the entries
-- whose time came when its marker moves. The user's marker also says whether the user has
-- `user:` state ('<until> 1') or had none ('<until> 0'; shared-state.lua sets it to 1 when
-- it writes some), and the app's marker (RedisKeys.appHasState: '1' or '0', set when a
-- user's marker moves and it is not there) whether the app has `app:` state, so a session
-- is read without them when there is none (read-session.lua).
--
-- KEYS[1..4]: the session's record, state, log (RedisKeys.events) and archive; KEYS[5]:
--   its watch marker (RedisKeys.watched); KEYS[6]: the inbox's watch marker
--   (RedisKeys.inboxWatched); KEYS[7]: the owner's list (RedisKeys.sessionsOf); KEYS[8]:
--   the user's marker (RedisKeys.userKept); KEYS[9]: the app's marker
--   (RedisKeys.appHasState); KEYS[10], KEYS[11]: the user's `user:` and the app's `app:`
--   state (RedisKeys.userState, RedisKeys.appState); for 'new', KEYS[12]: the record as
--   the release before layout 2 kept it (RedisKeys.meta); then the index keys the index
--   operations name (by their position in KEYS).
-- ARGV[1]: version ('new' creates); ARGV[2]: now (ms); ARGV[3]: session TTL (ms);
--   ARGV[4]: pause retention ('' for none); ARGV[5]: the expiries' slack (ms); ARGV[6]:
--   '1' when the commit may be inbox news (then the inbox's marker is read); ARGV[7]: this
--   commit's id; ARGV[8]: how many of the latest commit ids the record keeps (those it
--   holds, then this one; '0': none); ARGV[9]: the meta record; ARGV[10]: the latest
--   pause id; ARGV[11]: its record ('' when this commit does not write it); ARGV[12],
--   ARGV[13]: the same of the latest run; ARGV[14]: lastUpdateTime ('' to keep);
--   ARGV[15], ARGV[16]: app and user (JSON strings, for 'new'); ARGV[17]: the session id;
--   ARGV[18]: its score in the owner's list (when it leaves the list: last update +
--   session TTL); ARGV[19..23]: how many archive field/value pairs, audit lines, events
--   (id, JSON), state pairs and index operations follow; then those, in that order. An index operation is six values: its
--   name, the position of its key in KEYS and four arguments ('' where unused):
--     zadd    key score member '' ''          add or move an entry
--     zadd    key score member keep ''        the same, and keep the index until at least
--                                             `keep` (ms)
--     zkeep   key score member keep marker    the same in an index kept by a marker (the
--                                             position of its key in KEYS) until at least
--                                             `keep` (ms); the index holds a member '' scored
--                                             0, so that it is never emptied (and deleted
--                                             under its marker)
--     zrem    key member '' '' ''             drop an entry
--     trim    key upTo '' '' ''               drop the entries scored up to `upTo`
--     set     key value keep '' ''            a pointer, kept until `keep` (ms)
--     set     key value session always ''     a pointer kept as long as the session
--     set     key value session moved ''      the same, written only when the session's
--                                             expiry moves
--     hincrby key field by '' ''              move a hash field's count by `by`, never below 0
--     hnew    key fields keep '' ''           a hash (`fields`: a JSON array of field, value,
--                                             ...) written unless the key exists, kept until
--                                             `keep` (ms)
-- Returns { new version, watched (0 or 1), inbox watched (0 or 1, -1 when not read) };
-- false when the session is not at ARGV[1] (or, for 'new', exists; or is not there): then
-- nothing was written; 'legacy' when an earlier release's record must be moved over first
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
local function extend(key, at)
  if redis.call('PEXPIREAT', key, at, 'GT') == 0 then
    redis.call('PEXPIREAT', key, at, 'NX')
  end
end
-- Until when a marker's value says its keys are kept (its first number); 0 for none.
local function keptUntil(value)
  if not value then return 0 end
  return tonumber(string.match(value, '^%d+')) or 0
end
-- The record's lines (see above).
local LAYOUT, VERSION, KEEP, COMMITS, TOKENS, FLAGS, APP, USER, UPDATED, PAUSE_ID, RUN_ID, DATA, PAUSE, RUN =
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14
local isNew = ARGV[1] == 'new'
local archivePairs, auditLines, events, statePairs, operations =
  tonumber(ARGV[19]), tonumber(ARGV[20]), tonumber(ARGV[21]), tonumber(ARGV[22]), tonumber(ARGV[23])
local a = 24
local first = a + 2 * archivePairs + auditLines + 2 * events + 2 * statePairs
local last = first + 6 * (operations - 1)
-- What the commit reads, in one MGET: the record, the watch markers (the inbox's only for
-- a commit that may be news; each is a string while it is there), the user's and the
-- app's markers, and the marker of each index an operation keeps.
local reads = { KEYS[1], KEYS[5], KEYS[8], KEYS[9] }
if ARGV[6] == '1' then reads[#reads + 1] = KEYS[6] end
local markerAt = {}
for i = first, last, 6 do
  local name = ARGV[i]
  if name == 'zkeep' then
    local marker = tonumber(ARGV[i + 5])
    if not markerAt[marker] then
      reads[#reads + 1] = KEYS[marker]
      markerAt[marker] = #reads
    end
  elseif name ~= 'zadd' and name ~= 'zrem' and name ~= 'trim' and name ~= 'set' and name ~= 'hincrby'
    and name ~= 'hnew' then
    return redis.error_reply('unknown index operation ' .. tostring(name))
  end
end
local read = redis.call('MGET', unpack(reads))
local watched, userMarker, appMarker = read[2], read[3], read[4]
local inboxWatched = ARGV[6] == '1' and read[5]
local record
if isNew then
  if read[1] or redis.call('EXISTS', KEYS[12]) == 1 then return false end
  record = { '3', '0', '0', '', '', '', ARGV[15], ARGV[16], '', '', '', '', '', '' }
else
  -- A session that is not there may have been kept by the release before layout 2: the
  -- caller reads it again (which moves it over) and tries again.
  if not read[1] then return false end
  record = {}
  for line in string.gmatch(read[1] .. '\n', '([^\n]*)\n') do record[#record + 1] = line end
  if record[LAYOUT] == '2' then return 'legacy' end
  -- A later release's record: the caller reads it again, which refuses it.
  if record[LAYOUT] ~= '3' then return false end
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
latest(PAUSE_ID, PAUSE, ARGV[10], ARGV[11], 'pause:')
latest(RUN_ID, RUN, ARGV[12], ARGV[13], 'run:')
for _, wanted in ipairs(fetch) do
  record[wanted[1]] = redis.call('HGET', KEYS[4], wanted[2]) or ''
end
for i = a, a + 2 * archivePairs - 1 do archive[#archive + 1] = ARGV[i] end
a = a + 2 * archivePairs
if #archive > 0 then
  call('HSET', KEYS[4], archive, 1, #archive)
  if not string.find(flags, 'a', 1, true) then
    flags = flags .. 'a'
    created[#created + 1] = KEYS[4]
  end
end
-- The log: the audit lines, then the events, appended in one RPUSH. A known event id is
-- found in the tokens (a plain find); its position, counted only then, is how many tokens
-- come before it. Ids this commit appends are known from here on.
local tokens = record[TOKENS]
local added, addedTokens, appended = {}, {}, {}
for i = a, a + auditLines - 1 do
  added[#added + 1] = ARGV[i]
  addedTokens[#addedTokens + 1] = '.'
end
a = a + auditLines
if events > 0 then
  local spaced = ' ' .. tokens .. ' '
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
      addedTokens[#addedTokens + 1] = id
      appended[id] = #added
    end
  end
  a = a + 2 * events
end
if #added > 0 then
  -- The log is created by a session's first audit line or event.
  if call('RPUSH', KEYS[3], added, 1, #added) == #added then created[#created + 1] = KEYS[3] end
  local more = table.concat(addedTokens, ' ')
  if tokens == '' then record[TOKENS] = more else record[TOKENS] = tokens .. ' ' .. more end
end
if statePairs > 0 then
  call('HSET', KEYS[2], ARGV, a, a + 2 * statePairs - 1)
  if not string.find(flags, 's', 1, true) then
    flags = flags .. 's'
    created[#created + 1] = KEYS[2]
  end
end
record[LAYOUT] = '3'
record[VERSION] = version
record[KEEP] = expireAt
-- The latest commit ids: those the record holds, then this one, the last ARGV[8] of them.
if ARGV[8] == '0' then
  record[COMMITS] = ''
else
  local ids = {}
  for id in string.gmatch(record[COMMITS], '[^ ]+') do ids[#ids + 1] = id end
  ids[#ids + 1] = ARGV[7]
  record[COMMITS] = table.concat(ids, ' ', math.max(1, #ids - tonumber(ARGV[8]) + 1))
end
record[FLAGS] = flags
if ARGV[14] ~= '' then record[UPDATED] = ARGV[14] end
record[DATA] = ARGV[9]
redis.call('SET', KEYS[1], table.concat(record, '\n'), 'PXAT', expireAt)
if moved and not isNew then
  -- The session's other keys, those it has (the flags and the tokens say which).
  if string.find(flags, 's', 1, true) then redis.call('PEXPIREAT', KEYS[2], expireAt) end
  if record[TOKENS] ~= '' then redis.call('PEXPIREAT', KEYS[3], expireAt) end
  if string.find(flags, 'a', 1, true) then redis.call('PEXPIREAT', KEYS[4], expireAt) end
else
  for _, key in ipairs(created) do redis.call('PEXPIREAT', key, expireAt) end
end
-- The owner's list, and what lives as long as the user's latest session: the list and
-- the user's state, kept by the user's marker.
local listed = tonumber(ARGV[18])
redis.call('ZADD', KEYS[7], listed, ARGV[17])
local needed = math.max(listed, expireAt)
if keptUntil(userMarker) < needed then
  local at = needed + slack
  extend(KEYS[7], at)
  -- Entries whose time came (when the session was last updated, by this commit's clock).
  redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', listed - ttl)
  local userUntil = redis.call('PEXPIRETIME', KEYS[10])
  if userUntil ~= -2 and userUntil < at then redis.call('PEXPIREAT', KEYS[10], at) end
  redis.call('SET', KEYS[8], at .. (userUntil == -2 and ' 0' or ' 1'), 'PXAT', at)
  if not appMarker then
    redis.call('SET', KEYS[9], redis.call('EXISTS', KEYS[11]) == 1 and '1' or '0')
  end
end
for i = first, last, 6 do
  local name, key = ARGV[i], KEYS[tonumber(ARGV[i + 1])]
  if name == 'zadd' then
    redis.call('ZADD', key, ARGV[i + 2], ARGV[i + 3])
    if ARGV[i + 4] ~= '' then extend(key, ARGV[i + 4]) end
  elseif name == 'zkeep' then
    redis.call('ZADD', key, 0, '', ARGV[i + 2], ARGV[i + 3])
    local keep, marker = tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5])
    if keptUntil(read[markerAt[marker]]) < keep then
      local at = keep + slack
      extend(key, at)
      redis.call('SET', KEYS[marker], at, 'PXAT', at)
      read[markerAt[marker]] = tostring(at)
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
