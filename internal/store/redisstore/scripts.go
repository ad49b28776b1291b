package redisstore

import "github.com/redis/go-redis/v9"

// The Lua scripts, all in one place. Each one is a single atomic step on the
// keys of one session, so every store method (except UpdateSession, which
// runs a Go function) is one round trip.
//
// Calling convention, the same for every script:
//
//	KEYS[1] = session (string, JSON)   KEYS[2] = stamps (hash)
//	KEYS[3] = denials (sorted set)     KEYS[4] = calls (sorted set)
//	ARGV[1] = idle TTL in milliseconds
//
// The call journal's scripts add the keys of calls after these, and some
// compute the keys of a call from ARGV (the session's key base and a
// tool_use_id): those keys carry the session's hash tag too, so they are in
// the same slot as the declared ones.
//
// All these keys share one Cluster hash tag (see keys.go), so a script may
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

// touch refreshes the idle TTL of the session's own keys (not its calls',
// which live for their keep time). PEXPIRE on an absent key (no stamps yet)
// does nothing.
const touch = `
local function touch()
  for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
`

// dropCalls deletes the records and streams of the calls listed in
// KEYS[4]; base is the session's key base.
const dropCalls = `
local function dropCalls(base)
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
    redis.call('DEL', base .. 'call:' .. id, base .. 'ev:' .. id)
  end
  redis.call('DEL', KEYS[4])
end
`

// scriptCreate: ARGV[2] = session JSON, ARGV[3] = key base. Returns 1, or 0
// if the id is taken. Stale stamps, denials, notifications or calls of an earlier session
// under the same id (calls may outlive it by their keep time) are dropped:
// a new session starts clean.
var scriptCreate = redis.NewScript(dropCalls + `
if not redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[1]) then
  return 0
end
redis.call('DEL', KEYS[2], KEYS[3], ARGV[3] .. 'cdenials', ARGV[3] .. 'notes')
dropCalls(ARGV[3])
return 1
`)

// scriptGet returns the session JSON, or nil.
var scriptGet = redis.NewScript(touch + `
local v = redis.call('GET', KEYS[1])
if not v then return false end
touch()
return v
`)

// scriptMarkDeleted is the first, atomic step of DeleteSession (delete.go):
// KEYS[5] = the deleted mark (hash); ARGV[2] = how long the mark is kept
// (ms), ARGV[3] = a token unique to this DeleteSession. It moves the
// session JSON into the mark and unlinks the session, stamps and denials
// keys, and the console's board keys, the classifier's denials and the
// notifications given as KEYS[6..] (UNLINK frees a
// large hash off Redis' main thread), so that every
// script from now on finds no session. The calls set stays: it lists the
// records that the bounded steps of scriptPurgeCalls drop next. Returns
// {status, calls left}: status 1 when this delete marked the session (a
// rerun with the same token, such as go-redis resending after a lost
// reply, also gets 1), 2 when another delete did, 0 when there is neither
// a session nor a mark. O(1) in the number of calls, so it never outlasts
// a read timeout however large the session.
// ARGV[4] and ARGV[5] are the notification wake channel and the session
// id: the session's notification readers, on every replica, learn at once
// that it is gone.
var scriptMarkDeleted = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then
  local by = redis.call('HGET', KEYS[5], 'by')
  if not by then return {0, 0} end
  local st = 2
  if by == ARGV[3] then st = 1 end
  return {st, redis.call('ZCARD', KEYS[4])}
end
redis.call('DEL', KEYS[5])
redis.call('HSET', KEYS[5], 's', v, 'by', ARGV[3])
redis.call('PEXPIRE', KEYS[5], ARGV[2])
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3])
for i = 6, #KEYS do redis.call('UNLINK', KEYS[i]) end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return {1, redis.call('ZCARD', KEYS[4])}
`)

// scriptPurgeCalls is one bounded step after scriptMarkDeleted, with its own
// calling convention: KEYS[1] = session, KEYS[2] = calls; ARGV[1] = key
// base, ARGV[2] = at most how many calls. It drops that many of the calls
// listed (record and stream) and returns how many are left. It does
// nothing while the session exists, and running it twice is harmless, so a
// retry of a step that timed out is safe.
var scriptPurgeCalls = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local ids = redis.call('ZPOPMIN', KEYS[2], ARGV[2])
for i = 1, #ids, 2 do
  redis.call('UNLINK', ARGV[1] .. 'call:' .. ids[i], ARGV[1] .. 'ev:' .. ids[i])
end
return redis.call('ZCARD', KEYS[2])
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

// scriptGetBlob: ARGV[2] = field. Returns {1, value}, {0} when there is
// none, or nil if the session is absent.
var scriptGetBlob = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local v = redis.call('HGET', KEYS[2], ARGV[2])
touch()
if not v then return {0} end
return {1, v}
`)

// scriptSetTasks (the task list, and each agent task on its own field): ARGV[2] = field, ARGV[3] = the value the caller read
// ("" for none), ARGV[4] = the new value. A compare-and-set of the task
// list: it stores the new value only if the list is still the one read,
// and returns 1; 0 when another writer got there first (read again and
// retry), nil if the session is absent. No update is ever lost: each one
// is computed from the value it replaces.
var scriptSetTasks = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local cur = redis.call('HGET', KEYS[2], ARGV[2]) or ''
if cur ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
touch()
return 1
`)

// scriptRecordDenial: KEYS[5] = the sorted set of the kind (KEYS[3] for
// people's denials); ARGV[2] = at, ARGV[3] = at-window (both integer
// microseconds), ARGV[4] = a unique member (two denials at the same instant
// count twice), ARGV[5] = how long a set other than KEYS[3] is kept (ms:
// the longer of the idle TTL and the window, after which every entry is
// out of the window). Adds the denial, drops those at or before at-window
// and returns the count in (at-window, at], or nil.
var scriptRecordDenial = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('ZADD', KEYS[5], ARGV[2], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', ARGV[3])
local n = redis.call('ZCOUNT', KEYS[5], '(' .. ARGV[3], ARGV[2])
touch()
if KEYS[5] ~= KEYS[3] then redis.call('PEXPIRE', KEYS[5], ARGV[5]) end
return n
`)

// scriptCountDenials: KEYS[5] = the sorted set of the kind; ARGV[2] = now,
// ARGV[3] = now-window (microseconds). Returns the count in
// (now-window, now], or nil.
var scriptCountDenials = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local n = redis.call('ZCOUNT', KEYS[5], '(' .. ARGV[3], ARGV[2])
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

// nowMs reads Redis' clock: leases are compared on one clock whichever
// replica wrote them. Redis 7 replicates a script's effects, not the script,
// so reading TIME before writing is allowed.
const nowMs = `
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

// appendEvents adds events to a call's stream as ONE entry (one XADD for
// a whole flush or finish): entry id 0-<its last seq>, fields <seq> ->
// data for each event, and f -> 1 when the entry holds the final event.
// Events at or below the record's seq (a retried append) are skipped. The
// stream keeps the events of about the last cap seqs (MINID trims whole
// entries) and gets the record's remaining lifetime. args holds (seq,
// data, final) triples from index i on.
const appendEvents = `
local function appendEvents(rec, stream, cap, args, i)
  local last = tonumber(redis.call('HGET', rec, 'seq') or '0')
  local fields, final, top = {}, false, last
  while i + 2 <= #args do
    local seq = tonumber(args[i])
    if seq > top then
      fields[#fields + 1] = args[i]
      fields[#fields + 1] = args[i + 1]
      if args[i + 2] == '1' then final = true end
      top = seq
    end
    i = i + 3
  end
  if top == last then return end
  if final then
    fields[#fields + 1] = 'f'
    fields[#fields + 1] = '1'
  end
  local floor = top - tonumber(cap) + 1
  if floor < 1 then floor = 1 end
  redis.call('XADD', stream, 'MINID', '0-' .. floor, '0-' .. top, unpack(fields))
  redis.call('HSET', rec, 'seq', top)
  local ttl = redis.call('PTTL', rec)
  if ttl > 0 then redis.call('PEXPIRE', stream, ttl) end
end
`

// scriptBeginCalls returns the session and claims calls in one step.
// KEYS[5..] = the record of each call; ARGV[2] = owner, ARGV[3] = lease ms,
// ARGV[4] = keep ms, then (tool_use_id, fingerprint) pairs. Returns nil
// without a session; {0, i} when call i was used with another fingerprint
// (nothing is claimed); else {1, session JSON, status...} with status 0 =
// claimed by this owner, 1 = running elsewhere, 2 = done.
var scriptBeginCalls = redis.NewScript(touch + nowMs + `
local v = redis.call('GET', KEYS[1])
if not v then return false end
local now = nowMs()
local n = #KEYS - 4
local st = {}
for i = 1, n do
  local r = redis.call('HMGET', KEYS[4 + i], 'fp', 'owner', 'st')
  if r[1] then
    if r[1] ~= ARGV[4 + 2 * i] then return {0, i} end
    if r[3] == 'd' then st[i] = 2
    elseif r[2] == ARGV[2] then st[i] = 0
    else st[i] = 1 end
  else
    st[i] = -1
  end
end
local expires = now + tonumber(ARGV[4])
for i = 1, n do
  if st[i] == -1 then
    redis.call('HSET', KEYS[4 + i], 'fp', ARGV[4 + 2 * i], 'owner', ARGV[2], 'st', 'r',
      'lease', now + tonumber(ARGV[3]), 'seq', 0)
    redis.call('PEXPIRE', KEYS[4 + i], ARGV[4])
    redis.call('ZADD', KEYS[4], expires, ARGV[3 + 2 * i])
    st[i] = 0
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
touch()
local out = {1, v}
for i = 1, n do out[#out + 1] = st[i] end
return out
`)

// scriptAppendEvents: KEYS[1] = record, KEYS[2] = stream; ARGV[1] = owner,
// ARGV[2] = cap, then (seq, data, final) triples. Returns 1, or 0 when the
// owner does not hold a running call.
var scriptAppendEvents = redis.NewScript(appendEvents + `
local r = redis.call('HMGET', KEYS[1], 'owner', 'st')
if r[1] ~= ARGV[1] or r[2] ~= 'r' then return 0 end
appendEvents(KEYS[1], KEYS[2], ARGV[2], ARGV, 3)
return 1
`)

// scriptFinishCall: the session keys, KEYS[5] = record, KEYS[6] = stream;
// ARGV[2] = owner, ARGV[3] = cap, ARGV[4] = keep ms, ARGV[5] = tool_use_id,
// ARGV[6] = new cwd or "", ARGV[7] = n, then n (path, stamp) pairs, then
// (seq, data, final) triples. Returns nil without a session, 0 when the
// owner may not finish the call (not its own, and its lease has not lapsed,
// or not running), else 1.
var scriptFinishCall = redis.NewScript(touch + nowMs + appendEvents + setCwd + `
local v = redis.call('GET', KEYS[1])
if not v then return false end
local r = redis.call('HMGET', KEYS[5], 'owner', 'st', 'lease')
if r[2] ~= 'r' then return 0 end
if r[1] ~= ARGV[2] and tonumber(r[3]) >= nowMs() then return 0 end
local n = tonumber(ARGV[7])
for i = 0, n - 1 do
  redis.call('HSET', KEYS[2], ARGV[8 + 2 * i], ARGV[9 + 2 * i])
end
if ARGV[6] ~= '' then setCwd(v, ARGV[6]) end
redis.call('HSET', KEYS[5], 'st', 'd')
redis.call('PEXPIRE', KEYS[5], ARGV[4])
appendEvents(KEYS[5], KEYS[6], ARGV[3], ARGV, 8 + 2 * n)
redis.call('ZADD', KEYS[4], nowMs() + tonumber(ARGV[4]), ARGV[5])
touch()
return 1
`)

// setCwd rewrites the cwd field of the session JSON v in KEYS[1], with
// the idle TTL in ARGV[1].
const setCwd = `
local function setCwd(v, cwd)
  local s = cjson.decode(v)
  s['cwd'] = cwd
  redis.call('SET', KEYS[1], cjson.encode(s), 'PX', ARGV[1])
end
`

// scriptCommitCall: the session keys, KEYS[5] = record, KEYS[6] = stream;
// ARGV[2] = cap, ARGV[3] = keep ms, ARGV[4] = tool_use_id, ARGV[5] =
// fingerprint, ARGV[6] = the session ETag the call ran with, ARGV[7] = new
// cwd or "", ARGV[8] = n, then n (path, stamp) pairs, then (seq, data,
// final) triples. Returns nil without a session; 3 when the record exists
// with another fingerprint, 2 when it exists, 1 when the session changed
// (nothing stored in these three cases); 0 when it stored the call, done.
var scriptCommitCall = redis.NewScript(touch + nowMs + setCwd + `
local v = redis.call('GET', KEYS[1])
if not v then return false end
local fp = redis.call('HGET', KEYS[5], 'fp')
if fp then
  if fp ~= ARGV[5] then return 3 end
  return 2
end
if redis.sha1hex(v) ~= ARGV[6] then return 1 end
local n = tonumber(ARGV[8])
for i = 0, n - 1 do
  redis.call('HSET', KEYS[2], ARGV[9 + 2 * i], ARGV[10 + 2 * i])
end
if ARGV[7] ~= '' then setCwd(v, ARGV[7]) end
-- The call is done: nobody will wait on its stream, so its events go into
-- the record itself (e:<seq> fields, f = the final seq), which costs Redis
-- far less than creating a stream.
local fields, i, top = {'fp', ARGV[5], 'owner', '', 'st', 'd', 'lease', 0}, 9 + 2 * n, 0
while i + 2 <= #ARGV do
  fields[#fields + 1] = 'e:' .. ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
  if ARGV[i + 2] == '1' then
    fields[#fields + 1] = 'f'
    fields[#fields + 1] = ARGV[i]
  end
  top = tonumber(ARGV[i])
  i = i + 3
end
fields[#fields + 1] = 'seq'
fields[#fields + 1] = top
redis.call('HSET', KEYS[5], unpack(fields))
redis.call('PEXPIRE', KEYS[5], ARGV[3])
redis.call('ZADD', KEYS[4], nowMs() + tonumber(ARGV[3]), ARGV[4])
touch()
return 0
`)

// scriptReleaseCall: KEYS[1] = record, KEYS[2] = stream, KEYS[3] = calls;
// ARGV[1] = owner, ARGV[2] = tool_use_id. Drops a running call the owner
// holds; returns 1, or 0 when it left the call alone.
var scriptReleaseCall = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'owner', 'st')
if r[1] ~= ARGV[1] or r[2] ~= 'r' then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[2])
return 1
`)

// scriptRenewLease: KEYS[1] = record; ARGV[1] = owner, ARGV[2] = lease ms.
var scriptRenewLease = redis.NewScript(nowMs + `
local r = redis.call('HMGET', KEYS[1], 'owner', 'st')
if r[1] ~= ARGV[1] or r[2] ~= 'r' then return 0 end
redis.call('HSET', KEYS[1], 'lease', nowMs() + tonumber(ARGV[2]))
return 1
`)

// scriptReadEvents: KEYS[1] = session, KEYS[2] = record, KEYS[3] = stream;
// ARGV[1] = after (seq). Returns nil without a session, else {status,
// expired, entries, record} with status 0 absent, 1 running, 2 done,
// expired 1 when a running call's lease has lapsed, entries as XRANGE
// gives them, and record, for a call CommitCall stored with its events
// inline, the record's fields as HGETALL gives them.
var scriptReadEvents = redis.NewScript(nowMs + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local r = redis.call('HMGET', KEYS[2], 'st', 'lease', 'f')
if not r[1] then return {0, 0, {}, {}} end
local st, expired = 2, 0
if r[1] == 'r' then
  st = 1
  if tonumber(r[2]) < nowMs() then expired = 1 end
end
if r[3] and st == 2 and redis.call('EXISTS', KEYS[3]) == 0 then
  return {st, expired, {}, redis.call('HGETALL', KEYS[2])}
end
return {st, expired, redis.call('XRANGE', KEYS[3], '(0-' .. ARGV[1], '+'), {}}
`)

// allScripts are preloaded by Open.
var allScripts = []*redis.Script{
	scriptCreate, scriptGet, scriptMarkDeleted, scriptPurgeCalls, scriptSetCwd,
	scriptRecordRead, scriptReadStamp, scriptSetTasks, scriptRecordDenial, scriptCountDenials,
	scriptResolve, scriptBeginCalls, scriptAppendEvents, scriptFinishCall,
	scriptReleaseCall, scriptRenewLease, scriptReadEvents, scriptCommitCall,
	scriptGetBlob, scriptAddNote, scriptReadNotes,
}

// The console's board (board.go) has its own calling convention:
// KEYS[1] = session, KEYS[2] = feed (stream) or asks (hash), KEYS[3] =
// the asks' expiry times (sorted set); ARGV[1] = idle TTL in milliseconds.
// The board's keys expire when the session has been idle that long.

// scriptAppendFeed: ARGV[2] = how many entries to keep, ARGV[3..] = the
// entries' data. Each entry gets the id 0-<seq>, seq one more than the
// stream's last (Redis numbers them). Returns 1, or nil.
var scriptAppendFeed = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
for i = 3, #ARGV do
  redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], '0-*', 'd', ARGV[i])
end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`)

// scriptPutAsk: ARGV[2] = request id, ARGV[3] = data, ARGV[4] = when it
// stops being listed (ms). Returns 1, or nil.
var scriptPutAsk = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[1])
return 1
`)

// scriptListAsks: ARGV[2] = now (ms). Drops the requests whose time has
// passed and returns the others as {id, data, ...}, the soonest to expire
// (the oldest) first.
var scriptListAsks = redis.NewScript(`
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])) do
  redis.call('HDEL', KEYS[2], id)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  local d = redis.call('HGET', KEYS[2], id)
  if d then
    out[#out + 1] = id
    out[#out + 1] = d
  end
end
return out
`)

// The notification queues (notifications.go) have their own calling
// convention too: KEYS[1] = session, KEYS[2] = stamps (hash), KEYS[3] =
// notes (stream); ARGV[1] = idle TTL in milliseconds.

// scriptAddNote: ARGV[2] = how many to keep, ARGV[3] = the notification
// JSON, ARGV[4] = the wake channel, ARGV[5] = the session id. The seq comes
// from a counter in the stamps hash, which lives exactly as long as the
// session (a stream that expired while the session lived would start
// again at 1 under readers that are past that); the entry's id is
// 0-<seq>. A new stamps hash gets the session's remaining TTL, so the
// counter does not outlive it. The readers on every replica are woken
// through the channel. Returns the seq, or nil.
var scriptAddNote = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local seq = redis.call('HINCRBY', KEYS[2], '\0noteseq', 1)
if redis.call('PTTL', KEYS[2]) < 0 then
  redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
end
redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[2], '0-' .. seq, 'd', ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[1])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return seq
`)

// scriptReadNotes: ARGV[2] = the cursor (entries after 0-<cursor>), ARGV[3]
// = at most how many. Returns the entries, or nil when the session is
// absent.
var scriptReadNotes = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('XRANGE', KEYS[3], '(0-' .. ARGV[2], '+', 'COUNT', ARGV[3])
`)
