-- KEYS: usage hash, job hash, processing index, expiry index, claim hash
-- ARGV: limit, reserve, jobId, createdAt, deleteAfter, expireAt ('' = never), bind ('1'/'0'), fence, job field/value pairs...
-- The fence (ms on Redis's clock, 0 = none) is when the caller gave up waiting for this answer: a
-- script that only runs later (Redis froze with it unread) must not create a job nobody was told of.
if tonumber(ARGV[8]) > 0 then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[8]) then return {2} end
end
local usage = redis.call('HMGET', KEYS[1], 'settled', 'reserved')
local used = tonumber(usage[1] or '0') + tonumber(usage[2] or '0')
local reserve = tonumber(ARGV[2])
if used + reserve > tonumber(ARGV[1]) then return {0, used} end
if redis.call('EXISTS', KEYS[2]) == 1 then return redis.error_reply('ERR job ' .. ARGV[3] .. ' exists') end
redis.call('HINCRBY', KEYS[1], 'reserved', reserve)
local fields = {}
for i = 9, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(fields))
if ARGV[6] ~= '' then redis.call('PEXPIREAT', KEYS[2], ARGV[6]) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[3])
if ARGV[7] == '1' then
  -- Bind the claim to its job for the life of the job, unless a stale-claim takeover moved it on.
  local holder = redis.call('HGET', KEYS[5], 'jobId')
  if holder == ARGV[3] or not holder then
    redis.call('HSET', KEYS[5], 'jobId', ARGV[3], 'claimedAt', ARGV[4], 'bound', '1')
    if ARGV[6] ~= '' then redis.call('PEXPIREAT', KEYS[5], ARGV[6]) else redis.call('PERSIST', KEYS[5]) end
  end
end
return {1, used + reserve}
