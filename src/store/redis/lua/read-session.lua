-- Reads the ADK session: its record (see commit-session.lua), its session-scoped state
-- (only when the record says it has some) and its events, and the `app:` and `user:`
-- state its app and user share, in one call. The user's state is kept as long as their
-- latest session by the commits, so reading it moves nothing.
-- KEYS[1]: the record; KEYS[2]: state; KEYS[3]: events (RedisKeys.sessionKeys order);
--   KEYS[4]: app state; KEYS[5]: user state (RedisKeys.appState, RedisKeys.userState);
--   KEYS[6]: the record as an earlier release kept it (RedisKeys.meta).
-- ARGV: none.
-- Returns { record, state pairs, event JSONs, app state pairs, user state pairs } (pairs
-- as flat HGETALL replies), false when there is no session, or 'legacy' when there is only
-- an earlier release's record (upgrade-session.lua moves it over).
local record = redis.call('GET', KEYS[1])
if not record then
  if redis.call('EXISTS', KEYS[6]) == 1 then return 'legacy' end
  return false
end
-- The sixth line holds the flags.
local line, flags = 0, ''
for text in string.gmatch(record, '([^\n]*)\n') do
  line = line + 1
  if line == 6 then
    flags = text
    break
  end
end
local state = {}
if string.find(flags, 's', 1, true) then state = redis.call('HGETALL', KEYS[2]) end
return {
  record,
  state,
  redis.call('LRANGE', KEYS[3], 0, -1),
  redis.call('HGETALL', KEYS[4]),
  redis.call('HGETALL', KEYS[5])
}
