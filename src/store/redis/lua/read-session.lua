-- Reads the ADK session: its record, its session-scoped state and its events.
-- KEYS[1]: meta; KEYS[2]: state; KEYS[3]: events (RedisKeys.sessionKeys order).
-- ARGV: none.
-- Returns { {appName, userId, lastUpdateTime}, state pairs, event JSONs }.
return {
  redis.call('HMGET', KEYS[1], 'appName', 'userId', 'lastUpdateTime'),
  redis.call('HGETALL', KEYS[2]),
  redis.call('LRANGE', KEYS[3], 0, -1)
}
