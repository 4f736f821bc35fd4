-- Drops a session's entry from sorted indexes while it is still scored as its reader saw
-- it: an entry a commit wrote again since (the session paused or ran again) stays.
-- KEYS: the indexes (paused, paused-for:<audience>, running).
-- ARGV[1]: session id; ARGV[2]: the score the reader saw.
-- Returns 1.
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('ZSCORE', key, ARGV[1]) or '-1') == tonumber(ARGV[2]) then
    redis.call('ZREM', key, ARGV[1])
  end
end
return 1
