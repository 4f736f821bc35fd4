-- Reads the ADK session: its record, its session-scoped state and its events, and the
-- `app:` and `user:` state its app and user share, in one call. The session's state is
-- read only when it has some (the meta's `state` field), or when an earlier release wrote
-- the session (no `events` field), which did not say. The user's state is kept as long as
-- their latest session by the commits (commit-session.lua), so reading it moves nothing.
-- KEYS[1]: meta; KEYS[2]: state; KEYS[3]: events (RedisKeys.sessionKeys order);
--   KEYS[4]: app state; KEYS[5]: user state (RedisKeys.appState, RedisKeys.userState).
-- ARGV: none.
-- Returns { {appName, userId, lastUpdateTime}, state pairs, event JSONs, app state pairs,
--   user state pairs } (pairs as flat HGETALL replies).
local record = redis.call('HMGET', KEYS[1], 'appName', 'userId', 'lastUpdateTime', 'state', 'events')
local state = {}
if record[4] or not record[5] then state = redis.call('HGETALL', KEYS[2]) end
return {
  { record[1], record[2], record[3] },
  state,
  redis.call('LRANGE', KEYS[3], 0, -1),
  redis.call('HGETALL', KEYS[4]),
  redis.call('HGETALL', KEYS[5])
}
