-- Reads the ADK session: its record (see commit-session.lua), its session-scoped state
-- (only when the record says it has some), its events (only when it has some: the log's
-- audit lines are left out), and the `app:` and `user:` state its app and user share,
-- each only when its marker does not say there is none (the app's '0', the user's
-- '<until> 0'; see commit-session.lua), in one call. The user's state is kept as long as
-- their latest session by the commits, so reading it moves nothing.
-- KEYS[1]: the record; KEYS[2]: state; KEYS[3]: the log (RedisKeys.events); KEYS[4]: app
--   state; KEYS[5]: user state (RedisKeys.appState, RedisKeys.userState); KEYS[6]: the
--   app's marker (RedisKeys.appHasState); KEYS[7]: the user's (RedisKeys.userKept);
--   KEYS[8]: the record as the release before layout 2 kept it (RedisKeys.meta).
-- ARGV: none.
-- Returns { record, state pairs, event JSONs, app state pairs, user state pairs } (pairs
-- as flat HGETALL replies), false when there is no session, or 'legacy' when there is only
-- an earlier release's record (upgrade-session.lua moves it over).
local read = redis.call('MGET', KEYS[1], KEYS[6], KEYS[7])
local record, appMarker, userMarker = read[1], read[2], read[3]
if not record then
  if redis.call('EXISTS', KEYS[8]) == 1 then return 'legacy' end
  return false
end
-- A record of layout 2 is an earlier release's; one of a later layout is refused as read.
if string.sub(record, 1, 2) == '2\n' then return 'legacy' end
-- The fifth line holds the log's tokens, the sixth the flags.
local line, tokens, flags = 0, '', ''
for text in string.gmatch(record, '([^\n]*)\n') do
  line = line + 1
  if line == 5 then tokens = text end
  if line == 6 then
    flags = text
    break
  end
end
local state = {}
if string.find(flags, 's', 1, true) then state = redis.call('HGETALL', KEYS[2]) end
-- The events: the log's items whose token is not '.'.
local events, kinds, any = {}, {}, false
for token in string.gmatch(tokens, '[^ ]+') do
  local event = token ~= '.'
  kinds[#kinds + 1] = event
  any = any or event
end
if any then
  local items = redis.call('LRANGE', KEYS[3], 0, -1)
  for i, event in ipairs(kinds) do
    if event then events[#events + 1] = items[i] end
  end
end
local app, user = {}, {}
if appMarker ~= '0' then app = redis.call('HGETALL', KEYS[4]) end
if not userMarker or string.sub(userMarker, -1) ~= '0' then user = redis.call('HGETALL', KEYS[5]) end
return { record, state, events, app, user }
