-- Moves a session kept by an earlier release (a `meta` hash: version, the meta record as
-- `data`, the latest pause and run ids, every pause and run as `pause:<id>` / `run:<id>`,
-- the event ids in an `event-index` hash) over to the record this release keeps (see
-- commit-session.lua), once: its records stay as that release wrote them (read as `v` 1)
-- until they are written again, and the hash itself becomes the session's archive (its
-- pause and run fields are where the archive keeps them). The keys keep their expiry.
-- KEYS[1]: the record (RedisKeys.record); KEYS[2]: the earlier hash (RedisKeys.meta);
--   KEYS[3]: the archive; KEYS[4]: the earlier event index (RedisKeys.eventIndex);
--   KEYS[5]: the session's state.
-- ARGV: none.
-- Returns 1 when the session has a record now, 0 when there is no session.
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
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
  '2',
  f.version or '0',
  math.max(tonumber(f.keepUntil or '0'), at),
  f.commit or '',
  ids,
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
