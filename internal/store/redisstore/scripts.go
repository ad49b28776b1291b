package redisstore

import "github.com/redis/go-redis/v9"

// The Lua scripts, all in one place. Each one is a single atomic step on the
// keys of one session, so every store method (except UpdateSession, which
// runs a Go function) is one round trip.
//
// Calling convention, the same for every script:
//
//	KEYS[1] = session (string, JSON)   KEYS[2] = stamps (hash)
//	KEYS[3] = denials (sorted set)     ARGV[1] = idle TTL in milliseconds
//
// All three keys share one Cluster hash tag (see keys.go), so a script may
// touch them together on a Cluster too. A script that finds no session key
// returns false (a nil reply, redis.Nil in Go), which the store turns into
// store.ErrNotFound; anything else Redis answers with an error becomes
// store.ErrUnavailable. Every script that finds the session refreshes the
// idle TTL of all three keys in the same step (touch), so they expire
// together. The scripts use no clock (TIME): timestamps come from the caller,
// like in the memory store.
//
// go-redis runs a Script with EVALSHA (the SHA-1 is computed in Go) and falls
// back to EVAL on NOSCRIPT, e.g. after a failover to a replica whose script
// cache is empty; Open preloads them with SCRIPT LOAD.

// touch refreshes the idle TTL of every key of the session. PEXPIRE on an
// absent key (no stamps yet) does nothing.
const touch = `
local function touch()
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
`

// scriptCreate: ARGV[2] = session JSON. Returns 1, or 0 if the id is taken.
// Stale stamps or denials of an earlier session under the same id (they
// cannot outlive it, but a new session must start clean) are dropped.
var scriptCreate = redis.NewScript(`
if not redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[1]) then
  return 0
end
redis.call('DEL', KEYS[2], KEYS[3])
return 1
`)

// scriptGet returns the session JSON, or nil.
var scriptGet = redis.NewScript(touch + `
local v = redis.call('GET', KEYS[1])
if not v then return false end
touch()
return v
`)

// scriptDelete drops all keys of the session; returns 1, or 0 if the session
// key was absent.
var scriptDelete = redis.NewScript(`
local n = redis.call('EXISTS', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return n
`)

// scriptSetCwd: ARGV[2] = cwd. Rewrites the cwd field of the session JSON;
// returns 1, or nil. cjson turns an empty JSON array into {}, so the encoder
// omits empty lists and the decoder accepts {} (see codec.go); cjson keeps
// integers exact up to 1e14, far beyond any revision.
var scriptSetCwd = redis.NewScript(touch + `
local v = redis.call('GET', KEYS[1])
if not v then return false end
local s = cjson.decode(v)
s['cwd'] = ARGV[2]
redis.call('SET', KEYS[1], cjson.encode(s), 'PX', ARGV[1])
touch()
return 1
`)

// scriptRecordRead: ARGV[2] = path, ARGV[3] = stamp. Returns 1, or nil.
var scriptRecordRead = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
touch()
return 1
`)

// scriptReadStamp: ARGV[2] = path. Returns the stamp, "" if there is none,
// or nil if the session is absent.
var scriptReadStamp = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local v = redis.call('HGET', KEYS[2], ARGV[2])
touch()
if not v then return '' end
return v
`)

// scriptRecordDenial: ARGV[2] = at, ARGV[3] = at-window (both integer
// microseconds), ARGV[4] = a unique member (two denials at the same instant
// count twice). Adds the denial, drops those at or before at-window and
// returns the count in (at-window, at], or nil.
var scriptRecordDenial = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
local n = redis.call('ZCOUNT', KEYS[3], '(' .. ARGV[3], ARGV[2])
touch()
return n
`)

// scriptCountDenials: ARGV[2] = now, ARGV[3] = now-window (microseconds).
// Returns the count in (now-window, now], or nil.
var scriptCountDenials = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local n = redis.call('ZCOUNT', KEYS[3], '(' .. ARGV[3], ARGV[2])
touch()
return n
`)

// scriptResolve answers a permission request (pending.go), with its own
// calling convention: KEYS[1] = the request's marker, ARGV[1] = its
// channel, ARGV[2] = the answer JSON. Only the first answer deletes the
// marker, and only that one is published; returns 1, or 0 if no request
// was pending.
var scriptResolve = redis.NewScript(`
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`)

// allScripts are preloaded by Open.
var allScripts = []*redis.Script{
	scriptCreate, scriptGet, scriptDelete, scriptSetCwd,
	scriptRecordRead, scriptReadStamp, scriptRecordDenial, scriptCountDenials,
	scriptResolve,
}
