-- Checks one or more rate-limit buckets in turn, as one atomic step (a batch of requests that arrived
-- together). KEYS: the buckets, one per check (a bucket may appear more than once: its checks run in
-- order). ARGV[1]: now in ms ('' = Redis time); then, per check, 4 values: windowMs, limit, consume
-- ('1'/'0'), member. Returns 3 values per check: allowed (1/0), count in the window, seconds to reset.
local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local out = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local at = 2 + (i - 1) * 4
  local window = tonumber(ARGV[at])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  local allowed = count < tonumber(ARGV[at + 1])
  if allowed and ARGV[at + 2] == '1' then
    redis.call('ZADD', key, now, ARGV[at + 3])
    count = count + 1
    redis.call('PEXPIRE', key, window)
  end
  -- Seconds until the oldest admitted request leaves the window and frees a place.
  local reset = 0
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if oldest[2] then
    reset = math.ceil((tonumber(oldest[2]) + window - now) / 1000)
    if reset < 1 then reset = 1 end
  end
  out[#out + 1] = allowed and 1 or 0
  out[#out + 1] = count
  out[#out + 1] = reset
end
return out
