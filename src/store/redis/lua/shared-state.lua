-- Applies a change to an app's `app:` state and one user's `user:` state (read-session.lua
-- reads them with the session).
-- The user's state lives as long as the user has sessions: every read and write gives it
-- a full session lifetime again.
-- KEYS[1]: app state; KEYS[2]: user state (one slot: they share the app's hash tag).
-- ARGV[1]: the user state's lifetime (ms); ARGV[2]: how many app-state pairs; ARGV[3]: how
-- many user-state pairs; then those pairs (key, JSON value).
-- Returns nothing.
local function hset(key, first, last)
  for i = first, last, 4000 do
    redis.call('HSET', key, unpack(ARGV, i, math.min(i + 3999, last)))
  end
end
local appPairs, userPairs = tonumber(ARGV[2]), tonumber(ARGV[3])
hset(KEYS[1], 4, 3 + 2 * appPairs)
hset(KEYS[2], 4 + 2 * appPairs, 3 + 2 * appPairs + 2 * userPairs)
redis.call('PEXPIRE', KEYS[2], ARGV[1])
