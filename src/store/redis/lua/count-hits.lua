-- Counts one hit on each key in the window it names, in order, and stops after the first
-- key whose count passes its limit (the keys after it are not counted). Each key expires
-- on its own once its window can be over.
-- KEYS: one counter per kind (`<prefix>:rate:<sha256>:<window start>`).
-- ARGV[1]: the window's length (ms); then one limit per key ('' for none).
-- Returns the counts, one per key counted.
local counts = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  counts[i] = count
  local limit = ARGV[i + 1]
  if limit ~= '' and count > tonumber(limit) then break end
end
return counts
