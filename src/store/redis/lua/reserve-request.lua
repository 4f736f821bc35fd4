-- Reserves an idempotency key, or returns what holds it, in one step.
-- KEYS[1]: the request record's key.
-- ARGV[1]: the reserving record (JSON); ARGV[2]: how long it is kept (ms).
-- Returns false when reserved now, else the record that holds the key.
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return false end
return redis.call('GET', KEYS[1])
