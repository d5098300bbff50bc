-- KEYS: claim hash. ARGV: jobId, now, staleAfterMs, claimTtlMs, job key prefix, fence (see CREATE_JOB)
if tonumber(ARGV[6]) > 0 then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[6]) then return {'late'} end
end
local held = redis.call('HMGET', KEYS[1], 'jobId', 'claimedAt', 'bound')
local function claim()
  redis.call('HSET', KEYS[1], 'jobId', ARGV[1], 'claimedAt', ARGV[2], 'bound', '0')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return {'claimed'}
end
if not held[1] then return claim() end
if held[3] == '1' then
  -- A binding normally goes with its job (same expiry, same sweep); one whose job is gone frees the key.
  if redis.call('EXISTS', ARGV[5] .. held[1]) == 1 then return {'existing', held[1]} end
  return claim()
end
-- Unbound: its holder is between claim and job creation, or died there.
if tonumber(ARGV[2]) - tonumber(held[2]) > tonumber(ARGV[3]) then return claim() end
return {'pending'}
