-- Makes a delivery due now again, from its first attempt (an admin's re-send), whatever
-- its status; a claim in progress no longer holds.
-- KEYS[1]: the delivery; KEYS[2]: the due index; KEYS[3..6]: the status lists of
--   pending, failed, sent, gave_up.
-- ARGV[1]: delivery id; ARGV[2]: now (ms).
-- Returns the delivery's fields (HGETALL) after, or false when there is no such delivery.
local f = redis.call('HMGET', KEYS[1], 'status', 'version', 'createdAt')
if not f[1] then return false end
local lists = { pending = KEYS[3], failed = KEYS[4], sent = KEYS[5], gave_up = KEYS[6] }
redis.call('HSET', KEYS[1], 'status', 'pending', 'attempts', 0, 'nextAttemptAt', ARGV[2],
  'claimedBy', '', 'lastError', '', 'updatedAt', ARGV[2], 'version', tonumber(f[2]) + 1)
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
if f[1] ~= 'pending' then
  redis.call('ZREM', lists[f[1]], ARGV[1])
  redis.call('ZADD', lists.pending, f[3], ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
