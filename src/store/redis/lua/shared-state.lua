-- Applies a change to an app's `app:` state and one user's `user:` state (read-session.lua
-- reads them with the session), and the markers that say they exist (see
-- commit-session.lua): the app's is set to '1' when its state is written, the user's to
-- '<until> 1' when theirs is.
-- The user's state lives as long as the user has sessions: a write gives it a full
-- session lifetime again, and never less than the user's marker says it is kept (the
-- sessions whose commits found that marker moved nothing); an expiry is never shortened.
-- KEYS[1]: app state; KEYS[2]: user state; KEYS[3]: the app's marker
--   (RedisKeys.appHasState); KEYS[4]: the user's (RedisKeys.userKept). One slot: they
--   share the app's hash tag.
-- ARGV[1]: now (ms); ARGV[2]: the user state's lifetime (ms); ARGV[3]: how many app-state
--   pairs; ARGV[4]: how many user-state pairs; then those pairs (key, JSON value).
-- Returns nothing.
local function hset(key, first, last)
  for i = first, last, 4000 do
    redis.call('HSET', key, unpack(ARGV, i, math.min(i + 3999, last)))
  end
end
local appPairs, userPairs = tonumber(ARGV[3]), tonumber(ARGV[4])
if appPairs > 0 then
  hset(KEYS[1], 5, 4 + 2 * appPairs)
  redis.call('SET', KEYS[3], '1')
end
if userPairs > 0 then
  hset(KEYS[2], 5 + 2 * appPairs, 4 + 2 * appPairs + 2 * userPairs)
  local marker = redis.call('GET', KEYS[4])
  local kept = marker and tonumber(string.match(marker, '^%d+')) or 0
  local at = math.max(tonumber(ARGV[1]) + tonumber(ARGV[2]), kept)
  if redis.call('PEXPIREAT', KEYS[2], at, 'GT') == 0 then
    redis.call('PEXPIREAT', KEYS[2], at, 'NX')
  end
  if marker and string.sub(marker, -1) == '0' then
    redis.call('SET', KEYS[4], kept .. ' 1', 'KEEPTTL')
  end
end
