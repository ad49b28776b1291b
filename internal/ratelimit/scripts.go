package ratelimit

import "github.com/redis/go-redis/v9"

// Times in the scripts are microseconds of the Redis server's clock
// (TIME), so replicas with skewed clocks still share one schedule. Numbers
// are passed back to Redis through string.format('%.0f'), since Lua's
// default conversion would print large ones in exponent form.
//
// Keys of one tenant share a hash tag ({tenant}) so that a script touches
// one Redis Cluster slot.
//
// Concurrency is counted per replica, not per call: the hash holds how
// many slots each replica has taken, the sorted set when each replica's
// hold expires (a replica renews it while it holds slots, so the slots of
// a replica that died free themselves).

// scriptAdmit takes, all or nothing, tokens of the tenant's rate and
// concurrency slots for one replica.
//
// Rate: at least ARGV[1] tokens (need) and, if the bucket has them, up to
// ARGV[2] (want), which the replica spends locally afterwards. GCRA on the
// rate key: a grant of g fits if, after adding its g intervals, the
// theoretical arrival time lies no more than burst intervals ahead of now.
//
// Concurrency: ARGV[5] more slots (0: none asked) if every replica's
// holds together stay within ARGV[6]. Holds whose expiry passed are
// dropped first.
//
// KEYS[1] rate key, KEYS[2] expiry set, KEYS[3] hold hash
// ARGV[1] need, ARGV[2] want, ARGV[3] emission interval (0: no rate
// limit), ARGV[4] burst, ARGV[5] slots, ARGV[6] concurrency limit,
// ARGV[7] hold TTL, ARGV[8] replica id
//
// Returns {0, granted tokens, slots the replica now holds} admitted,
// {1, wait, 0} refused by the rate, {2, held by all, 0} refused by the
// concurrency limit.
var scriptAdmit = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local need = tonumber(ARGV[1])
local want = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local slots = tonumber(ARGV[5])
local limit = tonumber(ARGV[6])
local ttl = tonumber(ARGV[7])
local id = ARGV[8]

local grant = 0
local next_tat
if interval > 0 and need > 0 then
  local tat = tonumber(redis.call('GET', KEYS[1])) or now
  if tat < now then tat = now end
  local room = math.floor((now - tat) / interval) + burst
  if room < need then
    return {1, math.ceil(tat + need * interval - burst * interval - now), 0}
  end
  grant = math.min(want, room)
  next_tat = tat + grant * interval
end

local mine = 0
if slots > 0 then
  local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', string.format('%.0f', now))
  if #gone > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%.0f', now))
    redis.call('HDEL', KEYS[3], unpack(gone))
  end
  local held = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[3])) do held = held + tonumber(v) end
  if held + slots > limit then
    return {2, held, 0}
  end
  mine = redis.call('HINCRBY', KEYS[3], id, slots)
  redis.call('ZADD', KEYS[2], string.format('%.0f', now + ttl), id)
  local ms = math.ceil(ttl / 1000)
  redis.call('PEXPIRE', KEYS[2], ms)
  redis.call('PEXPIRE', KEYS[3], ms)
end

if next_tat then
  redis.call('SET', KEYS[1], string.format('%.0f', next_tat),
    'PX', string.format('%.0f', math.ceil((next_tat - now) / 1000) + 1))
end
return {0, grant, mine}
`)

// scriptRenew moves a replica's hold expiry forward. A hold that already
// expired is not brought back: its slots may have gone to someone else
// meanwhile.
//
// KEYS[1] expiry set, KEYS[2] hold hash; ARGV[1] hold TTL, ARGV[2]
// replica id. Returns the slots the replica holds, -1 if its hold expired.
var scriptRenew = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ttl = tonumber(ARGV[1])
local exp = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[2]))
local mine = tonumber(redis.call('HGET', KEYS[2], ARGV[2]))
if not exp or exp <= now or not mine then
  return -1
end
redis.call('ZADD', KEYS[1], 'XX', string.format('%.0f', now + ttl), ARGV[2])
local ms = math.ceil(ttl / 1000)
redis.call('PEXPIRE', KEYS[1], ms)
redis.call('PEXPIRE', KEYS[2], ms)
return mine
`)

// scriptRelease gives back some of a replica's slots; when none remain
// its hold goes too.
//
// KEYS[1] expiry set, KEYS[2] hold hash; ARGV[1] slots, ARGV[2] replica
// id. Returns the slots the replica still holds.
var scriptRelease = redis.NewScript(`
local mine = tonumber(redis.call('HGET', KEYS[2], ARGV[2]))
if not mine then return 0 end
mine = mine - tonumber(ARGV[1])
if mine <= 0 then
  redis.call('HDEL', KEYS[2], ARGV[2])
  redis.call('ZREM', KEYS[1], ARGV[2])
  return 0
end
redis.call('HSET', KEYS[2], ARGV[2], mine)
return mine
`)
