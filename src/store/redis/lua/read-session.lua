-- Reads the ADK session: its record, its session-scoped state and its events, and the
-- `app:` and `user:` state its app and user share, in one call. The user's state lives as
-- long as the user has sessions: reading it gives it a full session lifetime again (as
-- shared-state.lua does on every write).
-- KEYS[1]: meta; KEYS[2]: state; KEYS[3]: events (RedisKeys.sessionKeys order);
--   KEYS[4]: app state; KEYS[5]: user state (RedisKeys.appState, RedisKeys.userState).
-- ARGV[1]: the user state's lifetime (ms).
-- Returns { {appName, userId, lastUpdateTime}, state pairs, event JSONs, app state pairs,
--   user state pairs } (pairs as flat HGETALL replies).
redis.call('PEXPIRE', KEYS[5], ARGV[1])
return {
  redis.call('HMGET', KEYS[1], 'appName', 'userId', 'lastUpdateTime'),
  redis.call('HGETALL', KEYS[2]),
  redis.call('LRANGE', KEYS[3], 0, -1),
  redis.call('HGETALL', KEYS[4]),
  redis.call('HGETALL', KEYS[5])
}
