-- KEYS: job hash, usage hash, processing index. ARGV: jobId, charged, job field/value pairs...
-- Completion and failure alike: the reservation leaves the ledger, the charge (0 on failure) enters it.
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reservedCentiminutes') or '0')
local fields = {}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
local left = tonumber(redis.call('HGET', KEYS[2], 'reserved') or '0') - reserved
if left < 0 then left = 0 end
redis.call('HSET', KEYS[2], 'reserved', left)
redis.call('HINCRBY', KEYS[2], 'settled', ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
