-- KEYS: job hash. ARGV: progress
-- Only ever raised: a run started again, or a write that arrives late, never lowers what was shown.
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'progress') or '0') >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
return 1
