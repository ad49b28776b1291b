// Package redisstore is the shared store: sessions, file stamps and denial
// counters in Redis, so that every replica sees the same state.
//
// It fails closed: any answer from Redis other than "no such session" (a
// refused connection, a timeout, LOADING, READONLY, a script error, data it
// cannot decode) is returned wrapped with store.ErrUnavailable, never turned
// into "no stamp" or "no denials".
//
// Each method is one round trip (one EVALSHA of a script in scripts.go),
// except UpdateSession, which runs a Go function under WATCH/MULTI. The keys
// of a session live in one Cluster slot (keys.go) and expire together after
// Options.SessionTTL without use.
//
// Replication is asynchronous: a failover may lose the last writes, such as
// a denial recorded just before it. That is accepted; use noeviction (or
// volatile-* with these TTLs) so that Redis never evicts denials.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	neturl "net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
)

var _ store.Store = (*Store)(nil)

// Defaults of Options.
const (
	// DefaultKeyPrefix starts every key; one prefix per deployment or
	// tenant.
	DefaultKeyPrefix = "toold:"
	// DefaultSessionTTL is how long a session lives without being used.
	// Every method that finds the session refreshes it on all its keys.
	DefaultSessionTTL = 24 * time.Hour
	// DefaultTimeout is the dial, read and write timeout of a client that
	// Open creates: a stuck Redis must fail a call quickly, not hang it.
	DefaultTimeout = 500 * time.Millisecond
	// DefaultUpdateAttempts bounds the optimistic retries of UpdateSession
	// when another writer changed the session between WATCH and EXEC.
	DefaultUpdateAttempts = 32
	// DefaultDeleteBatch is how many call records one step of
	// DeleteSession drops: well under a millisecond of Redis' time.
	DefaultDeleteBatch = 256
)

// Options configure a Store. Zero values mean the defaults above.
type Options struct {
	// KeyPrefix starts every key. It may not contain '{' or '}' (that would
	// move the Cluster hash tag).
	KeyPrefix string
	// SessionTTL is the idle lifetime of a session and all its state.
	SessionTTL time.Duration
	// Timeout is the DialTimeout, ReadTimeout and WriteTimeout of the
	// client Open creates, unless the URL sets them (dial_timeout=...).
	// New leaves the given client as it is.
	Timeout time.Duration
	// UpdateAttempts is how many times UpdateSession tries before it gives
	// up with ErrUnavailable under contention.
	UpdateAttempts int
	// DeleteBatch is how many call records one step of DeleteSession
	// drops (delete.go).
	DeleteBatch int
}

func (o Options) withDefaults() (Options, error) {
	if o.KeyPrefix == "" {
		o.KeyPrefix = DefaultKeyPrefix
	}
	if strings.ContainsAny(o.KeyPrefix, "{}") {
		return o, fmt.Errorf("redisstore: key prefix %q contains a brace", o.KeyPrefix)
	}
	if o.SessionTTL == 0 {
		o.SessionTTL = DefaultSessionTTL
	}
	if o.SessionTTL < time.Millisecond {
		return o, fmt.Errorf("redisstore: session TTL %v is below 1ms", o.SessionTTL)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.UpdateAttempts <= 0 {
		o.UpdateAttempts = DefaultUpdateAttempts
	}
	if o.DeleteBatch <= 0 {
		o.DeleteBatch = DefaultDeleteBatch
	}
	return o, nil
}

// Store implements store.Store on Redis.
type Store struct {
	c     redis.UniversalClient
	pipe  *autoPipe // the call path's scripts
	opts  Options
	ttlMs int64
	owned bool // Close closes c
	// afterPurgeStep, when set (tests), runs after each bounded step of
	// DeleteSession with the number of calls left.
	afterPurgeStep func(left int64)
	// wake wakes the notification readers (notewaker.go), made once.
	wakeOnce sync.Once
	wake     *noteWaker
}

// New returns a store on a client the caller built and owns (Close leaves it
// open). Use it for Sentinel (redis.NewFailoverClient) or Cluster
// (redis.NewClusterClient): set DialTimeout, ReadTimeout and WriteTimeout on
// it, and ContextTimeoutEnabled. It panics on invalid options (a brace in
// the prefix), a programming error; Open returns them as errors.
func New(client redis.UniversalClient, opts Options) *Store {
	o, err := opts.withDefaults()
	if err != nil {
		panic(err)
	}
	return &Store{c: client, pipe: newAutoPipe(client), opts: o, ttlMs: o.SessionTTL.Milliseconds()}
}

// Open connects to Redis given by a redis:// or rediss:// URL, checks it
// with PING and loads the scripts. An unreachable server is an error
// wrapping store.ErrUnavailable. The store owns the client: Close closes it.
// The URL selects the client (see clientFromURL): one server, Sentinel or
// Cluster.
//
// go-redis retries a command that failed on the network up to 3 times
// (max_retries= in the URL; -1 for none) and its pool retries a dial 5 times,
// so against a refused port a call fails after about 1.7 s, or at the
// deadline of its context if that comes first. A retried script may run
// twice (a denial counted twice): the safe direction.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	c, err := clientFromURL(url, o.Timeout)
	if err != nil {
		return nil, err
	}
	s := New(c, o)
	s.owned = true
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.loadScripts(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// clientFromURL builds the client a URL names:
//
//	redis://[user:pass@]host:port[/db][?options]           one server
//	redis://host:port?master_name=m&addr=host2:port2...     Sentinel: the
//	    sentinels, and the master they watch
//	redis://host:port?cluster=true&addr=host2:port2...      Cluster: seed
//	    nodes
//
// (rediss:// for TLS in each form), with go-redis' own URL options
// (dial_timeout=, max_retries=, ...). Timeouts the URL leaves unset are
// timeout. A call's deadline also bounds its socket reads and writes.
func clientFromURL(raw string, timeout time.Duration) (redis.UniversalClient, error) {
	// The URL may hold a password: errors do not repeat it.
	bad := errors.New("redisstore: invalid Redis URL (want redis://[user:password@]host:port[/db][?master_name=...|cluster=true][&addr=...] or rediss://...)")
	u, err := neturl.Parse(raw)
	if err != nil {
		return nil, bad
	}
	q := u.Query()
	defaults := func(ds ...*time.Duration) {
		for _, d := range ds {
			if *d == 0 {
				*d = timeout
			}
		}
	}
	switch {
	case q.Get("cluster") == "true":
		q.Del("cluster")
		u.RawQuery = q.Encode()
		co, err := redis.ParseClusterURL(u.String())
		if err != nil {
			return nil, bad
		}
		defaults(&co.DialTimeout, &co.ReadTimeout, &co.WriteTimeout)
		co.ContextTimeoutEnabled = true
		return redis.NewClusterClient(co), nil
	case q.Get("master_name") != "":
		fo, err := redis.ParseFailoverURL(raw)
		if err != nil {
			return nil, bad
		}
		defaults(&fo.DialTimeout, &fo.ReadTimeout, &fo.WriteTimeout)
		fo.ContextTimeoutEnabled = true
		return redis.NewFailoverClient(fo), nil
	default:
		ro, err := redis.ParseURL(raw)
		if err != nil {
			return nil, bad
		}
		defaults(&ro.DialTimeout, &ro.ReadTimeout, &ro.WriteTimeout)
		ro.ContextTimeoutEnabled = true
		return redis.NewClient(ro), nil
	}
}

// Ping checks that Redis answers; for health checks.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.c.Ping(ctx).Err(); err != nil {
		return unavailable(err)
	}
	return nil
}

// loadScripts puts the scripts into Redis' script cache, so that the first
// EVALSHA of each does not miss. It is an optimisation: Run falls back to
// EVAL after a miss.
func (s *Store) loadScripts(ctx context.Context) error {
	for _, sc := range allScripts {
		if err := sc.Load(ctx, s.c).Err(); err != nil {
			return unavailable(err)
		}
	}
	return nil
}

// Close stops the store's pipeline workers and closes the client if Open
// created it.
func (s *Store) Close() error {
	s.pipe.close()
	s.waker().close()
	if s.owned {
		return s.c.Close()
	}
	return nil
}

// unavailable wraps a Redis error: the caller fails closed.
func unavailable(err error) error {
	return fmt.Errorf("redis: %w: %w", store.ErrUnavailable, err)
}

func notFound(id string) error { return fmt.Errorf("session %s: %w", id, store.ErrNotFound) }

// run runs a script on the keys of session id. A nil reply means the session
// is absent: ErrNotFound.
func (s *Store) run(ctx context.Context, sc *redis.Script, id string, k keys, args ...any) (any, error) {
	return s.runWith(ctx, sc, id, k.all(), args...)
}

// runWith is run with the session's keys and more after them.
func (s *Store) runWith(ctx context.Context, sc *redis.Script, id string, ks []string, args ...any) (any, error) {
	v, err := sc.Run(ctx, s.c, ks, append([]any{s.ttlMs}, args...)...).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, notFound(id)
	case err != nil:
		return nil, unavailable(err)
	}
	return v, nil
}

func (s *Store) CreateSession(ctx context.Context, sess *store.Session) error {
	k, err := s.keys(sess.ID)
	if err != nil {
		return err
	}
	data, err := encodeSession(sess)
	if err != nil {
		return fmt.Errorf("redis: encode session %s: %w", sess.ID, err)
	}
	v, err := s.createIndexed(ctx, sess, k, data)
	if err != nil {
		return err
	}
	if n, _ := v.(int64); n != 1 {
		return fmt.Errorf("session %s: %w", sess.ID, store.ErrExists)
	}
	return nil
}

func (s *Store) GetSession(ctx context.Context, id string) (*store.Session, error) {
	k, err := s.keys(id)
	if err != nil {
		return nil, err
	}
	v, err := s.run(ctx, scriptGet, id, k)
	if err != nil {
		return nil, err
	}
	str, ok := v.(string)
	if !ok {
		return nil, unexpected(id, v)
	}
	sess, err := decodeSession([]byte(str))
	if err != nil {
		return nil, unavailable(fmt.Errorf("session %s: %w", id, err))
	}
	return sess, nil
}

// UpdateSession runs fn optimistically: WATCH the session key, read it, apply
// fn, and write it back in MULTI/EXEC, which fails if another writer changed
// the key in between; then it starts over, up to Options.UpdateAttempts
// times. fn may therefore run more than once, each time on a fresh copy; it
// must only change its argument. Cost: WATCH, GET and MULTI/EXEC, three
// round trips without contention.
func (s *Store) UpdateSession(ctx context.Context, id string, fn func(*store.Session) error) (*store.Session, error) {
	k, err := s.keys(id)
	if err != nil {
		return nil, err
	}
	for attempt := range s.opts.UpdateAttempts {
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return nil, unavailable(err)
			}
		}
		out, err := s.tryUpdate(ctx, id, k, fn)
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		return out, err
	}
	return nil, fmt.Errorf("redis: %w: session %s: update lost %d races", store.ErrUnavailable, id, s.opts.UpdateAttempts)
}

// errFn marks an error of the caller's function, returned as is.
type errFn struct{ err error }

func (e errFn) Error() string { return e.err.Error() }

// tryUpdate is one attempt; redis.TxFailedErr means try again.
func (s *Store) tryUpdate(ctx context.Context, id string, k keys, fn func(*store.Session) error) (*store.Session, error) {
	var out *store.Session
	err := s.c.Watch(ctx, func(tx *redis.Tx) error {
		b, err := tx.Get(ctx, k.session).Bytes()
		if err != nil {
			return err
		}
		old, err := decodeSession(b)
		if err != nil {
			return fmt.Errorf("session %s: %w", id, err)
		}
		c := old.Clone()
		if err := fn(c); err != nil {
			return errFn{err}
		}
		c.ID = id
		c.Revision = old.Revision + 1
		data, err := encodeSession(c)
		if err != nil {
			return errFn{fmt.Errorf("encode session %s: %w", id, err)}
		}
		c.ETag = etag(data)
		ttl := s.opts.SessionTTL
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, k.session, data, ttl)
			p.PExpire(ctx, k.stamps, ttl)
			p.PExpire(ctx, k.denials, ttl)
			p.PExpire(ctx, k.calls, ttl)
			return nil
		})
		out = c
		return err
	}, k.session)
	var fe errFn
	switch {
	case err == nil:
		return out.Clone(), nil
	case errors.As(err, &fe):
		return nil, fe.err
	case errors.Is(err, redis.Nil):
		return nil, notFound(id)
	case errors.Is(err, redis.TxFailedErr):
		return nil, err
	default:
		return nil, unavailable(err)
	}
}

// backoff waits a little, randomised, before attempt n, so that writers that
// collided do not collide again in step.
func backoff(ctx context.Context, n int) error {
	d := time.Duration(rand.Int64N(int64(min(n, 10))*int64(time.Millisecond)) + 1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Denial times are stored as integer microseconds since the Unix epoch
// (sub-microsecond precision is dropped): Redis scores are doubles, exact
// for integers up to 2^53, which microseconds reach only in the year 2255.

func (s *Store) RecordDenial(ctx context.Context, id string, kind store.DenialKind, at time.Time, window time.Duration) (int, error) {
	k, err := s.keys(id)
	if err != nil {
		return 0, err
	}
	set, err := k.denialsOf(kind)
	if err != nil {
		return 0, err
	}
	now := at.UnixMicro()
	// The member only has to be unique: two denials at the same instant
	// count twice.
	member := strconv.FormatInt(now, 10) + ":" + strconv.FormatUint(rand.Uint64(), 36)
	keep := max(s.ttlMs, window.Milliseconds()+1)
	v, err := s.runWith(ctx, scriptRecordDenial, id, append(k.all(), set), now, now-window.Microseconds(), member, keep)
	if err != nil {
		return 0, err
	}
	return count(id, v)
}

func (s *Store) CountDenials(ctx context.Context, id string, kind store.DenialKind, now time.Time, window time.Duration) (int, error) {
	k, err := s.keys(id)
	if err != nil {
		return 0, err
	}
	set, err := k.denialsOf(kind)
	if err != nil {
		return 0, err
	}
	us := now.UnixMicro()
	v, err := s.runWith(ctx, scriptCountDenials, id, append(k.all(), set), us, us-window.Microseconds())
	if err != nil {
		return 0, err
	}
	return count(id, v)
}

func count(id string, v any) (int, error) {
	n, ok := v.(int64)
	if !ok {
		return 0, unexpected(id, v)
	}
	return int(n), nil
}

func (s *Store) SetCwd(ctx context.Context, id, cwd string) error {
	k, err := s.keys(id)
	if err != nil {
		return err
	}
	_, err = s.run(ctx, scriptSetCwd, id, k, cwd)
	return err
}

func (s *Store) RecordRead(ctx context.Context, id, path string, st store.FileStamp) error {
	k, err := s.keys(id)
	if err != nil {
		return err
	}
	enc, err := encodeStamp(st)
	if err != nil {
		return fmt.Errorf("redis: encode stamp: %w", err)
	}
	_, err = s.run(ctx, scriptRecordRead, id, k, path, enc)
	return err
}

func (s *Store) ReadStamp(ctx context.Context, id, path string) (store.FileStamp, bool, error) {
	k, err := s.keys(id)
	if err != nil {
		return store.FileStamp{}, false, err
	}
	v, err := s.run(ctx, scriptReadStamp, id, k, path)
	if err != nil {
		return store.FileStamp{}, false, err
	}
	str, ok := v.(string)
	if !ok {
		return store.FileStamp{}, false, unexpected(id, v)
	}
	if str == "" {
		return store.FileStamp{}, false, nil
	}
	st, err := decodeStamp(str)
	if err != nil {
		return store.FileStamp{}, false, unavailable(fmt.Errorf("session %s: %w", id, err))
	}
	return st, true, nil
}

// unexpected reports a reply of the wrong type (a script from another
// version?); the caller fails closed.
func unexpected(id string, v any) error {
	return unavailable(fmt.Errorf("session %s: unexpected reply %T", id, v))
}

func (s *Store) GetBlob(ctx context.Context, id, key string) ([]byte, bool, error) {
	k, err := s.keys(id)
	if err != nil {
		return nil, false, err
	}
	v, err := s.run(ctx, scriptGetBlob, id, k, blobField(key))
	if err != nil {
		return nil, false, err
	}
	r, ok := v.([]any)
	if !ok || len(r) == 0 {
		return nil, false, unexpected(id, v)
	}
	if r[0] == int64(0) {
		return nil, false, nil
	}
	str, ok := r[1].(string)
	if len(r) != 2 || !ok {
		return nil, false, unexpected(id, v)
	}
	return []byte(str), true, nil
}
