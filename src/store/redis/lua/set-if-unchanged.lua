-- Replaces a string record only if it still holds what its reader saw, keeping its expiry:
-- a change someone else stored meanwhile stays.
-- KEYS[1]: the record.
-- ARGV[1]: the value the reader saw; ARGV[2]: the new value.
-- Returns 1 when replaced, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0
