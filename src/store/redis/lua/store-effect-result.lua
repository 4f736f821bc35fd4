-- Stores an effect's result, only while the key still holds this caller's lock, so a
-- caller whose lock lapsed cannot overwrite a lock another caller took since.
-- KEYS[1]: the effect's key.
-- ARGV[1]: the caller's lock; ARGV[2]: the result entry (JSON); ARGV[3]: how long it is kept (ms).
-- Returns 1 when stored, 0 when the lock is no longer the caller's.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
