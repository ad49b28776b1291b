package ratelimit

import "github.com/redis/go-redis/v9"

// Times in the scripts are microseconds of the Redis server's clock
// (TIME), so replicas with skewed clocks still share one schedule. Numbers
// are passed back to Redis through string.format('%.0f'), since Lua's
// default conversion would print large ones in exponent form.
//
// Keys of one tenant share a hash tag ({tenant}) so that a script touches
// one Redis Cluster slot.

// scriptAdmit admits a batch, all or nothing: the GCRA check on the rate
// key, then the count of live leases in the concurrency sorted set (whose
// scores are lease expiry times, so the slots of a replica that died
// without releasing free themselves). Only when both pass are the new
// theoretical arrival time and the leases written.
//
// KEYS[1] rate key, KEYS[2] lease set
// ARGV[1] calls, ARGV[2] emission interval (0: no rate limit), ARGV[3]
// burst, ARGV[4] concurrency limit (0: none), ARGV[5] lease TTL, ARGV[6..]
// lease members (one per call)
//
// Returns {0, 0} admitted, {1, wait} refused by the rate, {2, held}
// refused by the concurrency limit.
var scriptAdmit = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])

local next_tat
if interval > 0 then
  local tat = tonumber(redis.call('GET', KEYS[1])) or now
  if tat < now then tat = now end
  next_tat = tat + n * interval
  local allow_at = next_tat - burst * interval
  if allow_at > now then
    return {1, math.ceil(allow_at - now)}
  end
end

if limit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%.0f', now))
  local held = redis.call('ZCARD', KEYS[2])
  if held + n > limit then
    return {2, held}
  end
  local expires = string.format('%.0f', now + ttl)
  for i = 6, #ARGV do
    redis.call('ZADD', KEYS[2], expires, ARGV[i])
  end
  redis.call('PEXPIRE', KEYS[2], math.ceil(ttl / 1000))
end

if interval > 0 then
  redis.call('SET', KEYS[1], string.format('%.0f', next_tat),
    'PX', string.format('%.0f', math.ceil((next_tat - now) / 1000) + 1))
end
return {0, 0}
`)

// scriptRenew moves the expiry of a permit's leases forward. A lease that
// already expired is not brought back (XX): its slot may have been given
// to someone else meanwhile.
//
// KEYS[1] lease set; ARGV[1] lease TTL, ARGV[2..] members.
// Returns how many leases were still there.
var scriptRenew = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ttl = tonumber(ARGV[1])
local expires = string.format('%.0f', now + ttl)
local live = 0
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], 'XX', expires, ARGV[i])
    live = live + 1
  end
end
if live > 0 then
  redis.call('PEXPIRE', KEYS[1], math.ceil(ttl / 1000))
end
return live
`)

// scriptRelease removes leases. KEYS[1] lease set; ARGV members.
var scriptRelease = redis.NewScript(`
return redis.call('ZREM', KEYS[1], unpack(ARGV))
`)
