-- KEYS: account hash, accounts index. ARGV: id, createdAt, then field/value pairs
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR account ' .. ARGV[1] .. ' exists') end
local fields = {}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
