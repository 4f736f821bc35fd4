-- A page of an owner's sessions, highest score first, scored above ARGV[1] (now: lower
-- ones have left the list): from the top, or after the cursor entry (member ARGV[2]
-- scored ARGV[3]) in (score, member) order, wherever that entry went since.
-- KEYS[1]: the owner's list (RedisKeys.sessionsOf).
-- ARGV[1]: now (ms); ARGV[2]: the cursor's member ('' for the top); ARGV[3]: its score;
--   ARGV[4]: how many.
-- Returns member, score, member, ...
local limit = tonumber(ARGV[4])
local top = ARGV[2] == '' and '+inf' or ARGV[3]
local page, offset = {}, 0
while #page < 2 * limit do
  local chunk = redis.call('ZRANGE', KEYS[1], top, '(' .. ARGV[1], 'BYSCORE', 'REV', 'LIMIT',
    offset, limit, 'WITHSCORES')
  for i = 1, #chunk, 2 do
    local after = ARGV[2] == '' or tonumber(chunk[i + 1]) < tonumber(ARGV[3]) or chunk[i] < ARGV[2]
    if after and #page < 2 * limit then
      page[#page + 1] = chunk[i]
      page[#page + 1] = chunk[i + 1]
    end
  end
  if #chunk < 2 * limit then break end
  offset = offset + limit
end
return page
