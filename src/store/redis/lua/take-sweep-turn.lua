-- The expiry sweep belongs to ARGV[1] for ARGV[2] ms if it holds it already or nobody does.
-- KEYS[1]: the sweeper key.
-- ARGV[1]: the instance taking its turn; ARGV[2]: how long the turn lasts (ms).
-- Returns 1 when the caller holds the sweep, 0 while another instance does.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
return 0
