-- Reads one pause or run of a session: the session's record (see commit-session.lua),
-- which holds the latest pause and run, and the asked one from the archive when it is
-- not the latest.
-- KEYS[1]: the record; KEYS[2]: the archive; KEYS[3]: the record as the release before
--   layout 2 kept it (RedisKeys.meta).
-- ARGV[1]: 'pause' or 'run'; ARGV[2]: its id.
-- Returns { record, the archived record or false } , false when there is no session, or
-- 'legacy' when there is only an earlier release's record (upgrade-session.lua moves it
-- over).
local record = redis.call('GET', KEYS[1])
if not record then
  if redis.call('EXISTS', KEYS[3]) == 1 then return 'legacy' end
  return false
end
-- A record of layout 2 is an earlier release's; one of a later layout is refused as read.
if string.sub(record, 1, 2) == '2\n' then return 'legacy' end
-- The latest pause's id is the tenth line, the latest run's the eleventh.
local wanted = ARGV[1] == 'pause' and 10 or 11
local line = 0
for text in string.gmatch(record, '([^\n]*)\n') do
  line = line + 1
  if line == wanted then
    if text == ARGV[2] then return { record, false } end
    break
  end
end
return { record, redis.call('HGET', KEYS[2], ARGV[1] .. ':' .. ARGV[2]) }
