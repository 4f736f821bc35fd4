-- Records how a claimed attempt ended, only for the claim's holder (a claimer whose claim
-- lapsed and was taken by another is refused): sent, failed (due again at retryAt) or
-- gave_up; the delivery moves between the due index and the status lists accordingly.
-- KEYS[1]: the delivery; KEYS[2]: the due index; KEYS[3..6]: the status lists of
--   pending, failed, sent, gave_up (RedisKeys.deliveries(status)).
-- ARGV[1]: delivery id; ARGV[2]: owner; ARGV[3]: the result's status; ARGV[4]: its error,
--   or for sent its ref ('' for none); ARGV[5]: retryAt (failed); ARGV[6]: now (ms).
-- Returns 1, or 0 when `owner` does not hold the claim.
local f = redis.call('HMGET', KEYS[1], 'status', 'claimedBy', 'version', 'createdAt')
if not f[1] or (f[1] ~= 'pending' and f[1] ~= 'failed') or f[2] ~= ARGV[2] then return 0 end
local lists = { pending = KEYS[3], failed = KEYS[4], sent = KEYS[5], gave_up = KEYS[6] }
local status = ARGV[3]
redis.call('HSET', KEYS[1], 'status', status, 'claimedBy', '', 'updatedAt', ARGV[6],
  'version', tonumber(f[3]) + 1)
if status == 'sent' then
  redis.call('HSET', KEYS[1], 'ref', ARGV[4], 'sentAt', ARGV[6], 'nextAttemptAt', '')
  redis.call('ZREM', KEYS[2], ARGV[1])
elseif status == 'failed' then
  redis.call('HSET', KEYS[1], 'lastError', ARGV[4], 'nextAttemptAt', ARGV[5])
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
else
  redis.call('HSET', KEYS[1], 'lastError', ARGV[4], 'nextAttemptAt', '')
  redis.call('ZREM', KEYS[2], ARGV[1])
end
if status ~= f[1] then
  redis.call('ZREM', lists[f[1]], ARGV[1])
  redis.call('ZADD', lists[status], f[4], ARGV[1])
end
return 1
