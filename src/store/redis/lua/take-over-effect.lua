-- Drops a lock without a result, whoever holds it; a stored result stays.
-- KEYS[1]: the effect's key.
-- ARGV: none.
local entry = redis.call('GET', KEYS[1])
if entry and not string.find(entry, '"done":true', 1, true) then redis.call('DEL', KEYS[1]) end
return 1
