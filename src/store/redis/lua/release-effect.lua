-- Releases a lock without a result, only while it is still this caller's.
-- KEYS[1]: the effect's key.
-- ARGV[1]: the caller's lock.
-- Returns how many keys were deleted (0 when the lock is no longer the caller's).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
