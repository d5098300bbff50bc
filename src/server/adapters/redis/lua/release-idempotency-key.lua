-- KEYS: claim hash. ARGV: jobId. Only an unbound claim of this job is released.
local held = redis.call('HMGET', KEYS[1], 'jobId', 'bound')
if held[1] == ARGV[1] and held[2] == '0' then redis.call('DEL', KEYS[1]) return 1 end
return 0
