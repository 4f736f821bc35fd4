-- Stores an effect's result, only while the key still holds this caller's lock, so a
-- caller whose lock lapsed cannot overwrite a lock or result another caller stored since.
-- One SET that answers what it replaced: in the rare case that was not the caller's lock,
-- what was there is put back (a lock for the lock's lifetime, a result for the result's).
-- KEYS[1]: the effect's key.
-- ARGV[1]: the caller's lock; ARGV[2]: the result entry (JSON); ARGV[3]: how long it is
--   kept (ms); ARGV[4]: how long a lock holds (ms).
-- Returns 1 when stored, 0 when the lock is no longer the caller's.
local was = redis.call('SET', KEYS[1], ARGV[2], 'XX', 'PX', ARGV[3], 'GET')
if was == ARGV[1] then return 1 end
if was then
  local done = string.find(was, '"done":true', 1, true)
  redis.call('SET', KEYS[1], was, 'PX', done and ARGV[3] or ARGV[4])
end
return 0
