-- Moves a session kept by an earlier release over to the record this release keeps (see
-- commit-session.lua), once:
-- - a record of layout 2 (its audit lines in a list of their own): its audit lines are
--   appended to the session log, and the record says so (layout 3, a '.' token each);
-- - a `meta` hash (the release before layout 2: version, the meta record as `data`, the
--   latest pause and run ids, every pause and run as `pause:<id>` / `run:<id>`, the event
--   ids in an `event-index` hash): its records stay as that release wrote them (read as
--   `v` 1) until they are written again, the hash itself becomes the session's archive
--   (its pause and run fields are where the archive keeps them), and its audit lines move
--   to the log as above.
-- The keys keep their expiry. In the log the audit lines come after the events stored
-- before: each kind keeps its own order, which is all a reader takes from it.
-- KEYS[1]: the record (RedisKeys.record); KEYS[2]: the earlier hash (RedisKeys.meta);
--   KEYS[3]: the archive; KEYS[4]: the earlier event index (RedisKeys.eventIndex);
--   KEYS[5]: the session's state; KEYS[6]: its log (RedisKeys.events); KEYS[7]: the
--   earlier audit list (RedisKeys.audit).
-- ARGV: none.
-- Returns 1 when the session has a record of layout 3 now, 0 when there is no session.
-- Appends the audit list to the log (kept until `at`, ms, when it creates it), and
-- answers the tokens that say so ('' when there were no audit lines).
local function moveAudit(at)
  local lines = redis.call('LRANGE', KEYS[7], 0, -1)
  if #lines == 0 then return '' end
  local length
  for i = 1, #lines, 4000 do
    length = redis.call('RPUSH', KEYS[6], unpack(lines, i, math.min(i + 3999, #lines)))
  end
  if length == #lines and at > 0 then redis.call('PEXPIREAT', KEYS[6], at) end
  redis.call('DEL', KEYS[7])
  return string.rep('. ', #lines - 1) .. '.'
end
-- `tokens` followed by `more` (either may be '').
local function joined(tokens, more)
  if tokens == '' then return more end
  if more == '' then return tokens end
  return tokens .. ' ' .. more
end
local text = redis.call('GET', KEYS[1])
if text then
  local record = {}
  for line in string.gmatch(text .. '\n', '([^\n]*)\n') do record[#record + 1] = line end
  -- Only layout 2 is moved over; this release's (3) and a later one's are left as they are.
  if record[1] ~= '2' then return 1 end
  local at = redis.call('PEXPIRETIME', KEYS[1])
  record[1] = '3'
  record[5] = joined(record[5], moveAudit(at))
  redis.call('SET', KEYS[1], table.concat(record, '\n'), 'KEEPTTL')
  return 1
end
local flat = redis.call('HGETALL', KEYS[2])
if #flat == 0 then return 0 end
local f = {}
for i = 1, #flat, 2 do f[flat[i]] = flat[i + 1] end
local at = redis.call('PEXPIRETIME', KEYS[2])
local ids = f.events
if not ids then
  local index = redis.call('HGETALL', KEYS[4])
  local ordered = {}
  for i = 1, #index, 2 do ordered[tonumber(index[i + 1]) + 1] = index[i] end
  ids = table.concat(ordered, ' ')
end
local flags = 'a'
if f.state or redis.call('EXISTS', KEYS[5]) == 1 then flags = flags .. 's' end
local pauseId, runId = f.pauseId or '', f.invocationId or ''
local record = table.concat({
  '3',
  f.version or '0',
  math.max(tonumber(f.keepUntil or '0'), at),
  f.commit or '',
  joined(ids, moveAudit(at)),
  flags,
  cjson.encode(f.appName or ''),
  cjson.encode(f.userId or ''),
  f.lastUpdateTime or '0',
  pauseId,
  runId,
  f.data or '',
  f['pause:' .. pauseId] or '',
  f['run:' .. runId] or '',
}, '\n')
redis.call('RENAME', KEYS[2], KEYS[3])
if at > 0 then
  redis.call('SET', KEYS[1], record, 'PXAT', at)
else
  redis.call('SET', KEYS[1], record)
end
redis.call('DEL', KEYS[4])
return 1
