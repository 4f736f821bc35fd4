-- Reads what a transition needs of one session at one version: its record (see
-- commit-session.lua), with the latest pause and run; and whether anyone watches the
-- session's run events (RedisRelay keeps the marker while it listens), so its events are
-- published only then. RedisSessionReads.snapshot sends the MGET itself; this script is
-- its way when the record is not one of this release's, to tell an earlier release's
-- session (moved over by upgrade-session.lua) from none, in one step.
-- KEYS[1]: the record; KEYS[2]: the session's watch marker; KEYS[3]: the record as the
--   release before layout 2 kept it (RedisKeys.meta).
-- ARGV: none.
-- Returns { record or false, watched (0 or 1) }, or 'legacy' when there is only an
-- earlier release's record.
-- Both in one call (the marker is a string while it is there).
local read = redis.call('MGET', KEYS[1], KEYS[2])
if read[1] then
  -- A record of layout 2 is an earlier release's; one of a later layout is refused as read.
  if string.sub(read[1], 1, 2) == '2\n' then return 'legacy' end
elseif redis.call('EXISTS', KEYS[3]) == 1 then
  return 'legacy'
end
return { read[1], read[2] and 1 or 0 }
