-- Takes a due delivery for one attempt: only while it waits (pending or failed) and its
-- next attempt is due by now, so of concurrent claimers exactly one gets it. The claim
-- moves the next attempt to the claim's end (a claimer that dies leaves it due again
-- then, with the same id) and counts the attempt.
-- KEYS[1]: the delivery (RedisKeys.delivery); KEYS[2]: the due index (deliveriesDue).
-- ARGV[1]: delivery id; ARGV[2]: owner; ARGV[3]: until (ms); ARGV[4]: now (ms).
-- Returns the delivery's fields (HGETALL) as claimed, or false when it was not claimable.
local f = redis.call('HMGET', KEYS[1], 'status', 'nextAttemptAt', 'attempts', 'version')
if not f[1] or (f[1] ~= 'pending' and f[1] ~= 'failed') then return false end
if f[2] == '' or tonumber(f[2]) > tonumber(ARGV[4]) then return false end
redis.call('HSET', KEYS[1], 'attempts', tonumber(f[3]) + 1, 'claimedBy', ARGV[2],
  'nextAttemptAt', ARGV[3], 'updatedAt', ARGV[4], 'version', tonumber(f[4]) + 1)
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return redis.call('HGETALL', KEYS[1])
