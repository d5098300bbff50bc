-- KEYS: key hash, account's active-key marker. ARGV: revokedAt, publicId
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'revokedAt') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1
