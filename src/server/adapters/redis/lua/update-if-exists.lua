-- KEYS: a hash. ARGV: field/value pairs (may be none). Returns whether the hash exists.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return 1
