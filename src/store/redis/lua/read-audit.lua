-- Reads a page of a session's audit lines: the items of its log (see commit-session.lua)
-- whose token in the record is '.', from the `offset`-th on.
-- KEYS[1]: the record; KEYS[2]: the log (RedisKeys.events); KEYS[3]: the record as the
--   release before layout 2 kept it (RedisKeys.meta).
-- ARGV[1]: offset (from 0); ARGV[2]: how many at most.
-- Returns the lines (none when there is no session), 'legacy' when there is only an
-- earlier release's record (upgrade-session.lua moves it over), or false when the record
-- is of a later release's layout.
local record = redis.call('GET', KEYS[1])
if not record then
  if redis.call('EXISTS', KEYS[3]) == 1 then return 'legacy' end
  return {}
end
-- A record of layout 2 is an earlier release's; one of a later layout is refused as read.
if string.sub(record, 1, 2) == '2\n' then return 'legacy' end
if string.sub(record, 1, 2) ~= '3\n' then return false end
local line, tokens = 0, ''
for text in string.gmatch(record, '([^\n]*)\n') do
  line = line + 1
  if line == 5 then
    tokens = text
    break
  end
end
-- The positions (from 0) in the log of the audit lines asked for.
local from, upTo = tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1
local positions, position, seen = {}, -1, -1
for token in string.gmatch(tokens, '[^ ]+') do
  position = position + 1
  if token == '.' then
    seen = seen + 1
    if seen > upTo then break end
    if seen >= from then positions[#positions + 1] = position end
  end
end
if #positions == 0 then return {} end
local items = redis.call('LRANGE', KEYS[2], positions[1], positions[#positions])
local lines = {}
for _, at in ipairs(positions) do lines[#lines + 1] = items[at - positions[1] + 1] end
return lines
