-- Reads what a transition needs of one session at one version: its record (see
-- commit-session.lua), with the latest pause and run; and whether anyone watches the
-- session's run events (RedisRelay keeps the marker while it listens), so its events are
-- published only then.
-- KEYS[1]: the record; KEYS[2]: the session's watch marker; KEYS[3]: the record as an
--   earlier release kept it (RedisKeys.meta).
-- ARGV: none.
-- Returns { record or false, watched (0 or 1) }, or 'legacy' when there is only an
-- earlier release's record (upgrade-session.lua moves it over).
-- Both in one call (the marker is a string while it is there).
local read = redis.call('MGET', KEYS[1], KEYS[2])
if not read[1] and redis.call('EXISTS', KEYS[3]) == 1 then return 'legacy' end
return { read[1], read[2] and 1 or 0 }
