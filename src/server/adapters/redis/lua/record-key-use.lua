-- KEYS: key hash. ARGV: calls, lastUsedAt
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'callCount', ARGV[1])
local last = tonumber(redis.call('HGET', KEYS[1], 'lastUsedAt') or '0')
if tonumber(ARGV[2]) > last then redis.call('HSET', KEYS[1], 'lastUsedAt', ARGV[2]) end
return 1
