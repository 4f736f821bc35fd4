-- Reads what a transition needs of one session at one version: the meta names the latest
-- pause and run, whose records are fields of the same hash; and whether anyone watches
-- the session's run events (RedisRelay keeps the marker while it listens), so its events are published only then.
-- KEYS[1]: meta; KEYS[2]: the session's watch marker.
-- ARGV: none.
-- Returns { version, meta, latest pause, latest run, commit ids, watched (0 or 1) }.
local current = redis.call('HMGET', KEYS[1], 'pauseId', 'invocationId')
local read = redis.call('HMGET', KEYS[1], 'version', 'data',
  'pause:' .. (current[1] or ''), 'run:' .. (current[2] or ''), 'commit')
read[6] = redis.call('EXISTS', KEYS[2])
return read
