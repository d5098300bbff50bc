-- KEYS: bucket. ARGV: windowMs, limit, consume ('1'/'0'), member, now ('' = Redis time)
local now
if ARGV[5] ~= '' then
  now = tonumber(ARGV[5])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = count < tonumber(ARGV[2])
if allowed and ARGV[3] == '1' then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  count = count + 1
  redis.call('PEXPIRE', KEYS[1], window)
end
-- Seconds until the oldest admitted request leaves the window and frees a place.
local reset = 0
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then
  reset = math.ceil((tonumber(oldest[2]) + window - now) / 1000)
  if reset < 1 then reset = 1 end
end
return {allowed and 1 or 0, count, reset}
