-- A page of a sorted index (paused, paused-for:<audience>, running), by score from
-- ARGV[1] up to ARGV[5] ('' for no end), or right after the cursor entry (member ARGV[2]
-- scored ARGV[3]) when given: by rank while that entry is still there, else after it in
-- (score, member) order, as the index sorts (an index the cursor did not come from may
-- hold other members with the cursor's score).
-- KEYS[1]: the index.
-- ARGV[1]: least score; ARGV[2]: cursor member ('' for none); ARGV[3]: cursor score;
-- ARGV[4]: how many; ARGV[5]: greatest score ('' for none).
-- Returns member, score, member, score, ...
local limit = tonumber(ARGV[4])
local max = ARGV[5] == '' and math.huge or tonumber(ARGV[5])
local found
if ARGV[2] ~= '' then
  local score = redis.call('ZSCORE', KEYS[1], ARGV[2])
  if score and tonumber(score) == tonumber(ARGV[3]) then
    local rank = redis.call('ZRANK', KEYS[1], ARGV[2])
    found = redis.call('ZRANGE', KEYS[1], rank + 1, rank + limit, 'WITHSCORES')
  else
    found = {}
    local offset, after = 0, tonumber(ARGV[3])
    while #found < 2 * limit do
      local chunk = redis.call('ZRANGE', KEYS[1], ARGV[3], '+inf', 'BYSCORE', 'LIMIT', offset,
        limit, 'WITHSCORES')
      if #chunk == 0 then break end
      for i = 1, #chunk, 2 do
        if #found < 2 * limit and (tonumber(chunk[i + 1]) > after or chunk[i] > ARGV[2]) then
          found[#found + 1] = chunk[i]
          found[#found + 1] = chunk[i + 1]
        end
      end
      offset = offset + limit
    end
  end
else
  found = redis.call('ZRANGE', KEYS[1], ARGV[1], '+inf', 'BYSCORE', 'LIMIT', 0, limit,
    'WITHSCORES')
end
local page = {}
for i = 1, #found, 2 do
  if tonumber(found[i + 1]) > max then break end
  page[#page + 1] = found[i]
  page[#page + 1] = found[i + 1]
end
return page
