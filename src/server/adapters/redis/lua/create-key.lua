-- KEYS: key hash, account's active-key marker, keys index, account's keys index, account hash
-- ARGV: publicId, accountId, secretHash, name, createdAt
if redis.call('EXISTS', KEYS[5]) == 0 then return redis.error_reply('ERR no account ' .. ARGV[2]) end
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR key ' .. ARGV[1] .. ' exists') end
-- At most one active key per account (spec 3.2): the marker is set and checked in one step.
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'publicId', ARGV[1], 'accountId', ARGV[2], 'secretHash', ARGV[3], 'name', ARGV[4],
  'createdAt', ARGV[5], 'callCount', 0)
redis.call('SET', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1])
return 1
