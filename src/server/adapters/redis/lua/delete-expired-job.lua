-- KEYS: job hash, expiry index, processing index, usage hash, claim hash. ARGV: jobId
-- Removing the id from the expiry index is the claim: one sweeping instance deletes each job once.
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'status') == 'processing' then
    local reserved = tonumber(redis.call('HGET', KEYS[1], 'reservedCentiminutes') or '0')
    local left = tonumber(redis.call('HGET', KEYS[4], 'reserved') or '0') - reserved
    if left < 0 then left = 0 end
    redis.call('HSET', KEYS[4], 'reserved', left)
  end
  redis.call('DEL', KEYS[1])
end
if redis.call('HGET', KEYS[5], 'jobId') == ARGV[1] then redis.call('DEL', KEYS[5]) end
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
