package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
)

// Defaults of RedisOptions.
const (
	DefaultLeaseTTL     = 30 * time.Second
	DefaultTokenLease   = 100 * time.Millisecond
	DefaultReleaseDelay = 50 * time.Millisecond
)

// RedisOptions configure the shared limiter.
type RedisOptions struct {
	// KeyPrefix starts every key ("toold:" gives toold:rl:{tenant}:rate).
	KeyPrefix string
	// LeaseTTL is how long a replica's concurrency slots outlive it: a
	// replica that holds slots renews them every LeaseTTL/3.
	LeaseTTL time.Duration
	// TokenLease is how long tokens of the rate taken from Redis ahead of
	// need may be spent by this replica; unspent, they lapse. A replica
	// takes ahead at most what it admitted in the last TokenLease, up to
	// rate × TokenLease and the burst (docs/limits.md has the bound).
	TokenLease time.Duration
	// ReleaseDelay is how long a finished call's concurrency slot stays
	// with this replica for its next call before it goes back to Redis.
	ReleaseDelay time.Duration
	// Timeout bounds one Redis round trip (admission, renewal, release);
	// 2 s if zero.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Redis shares each tenant's limits between every replica that uses the
// same Redis and key prefix. In the steady state it talks to Redis less
// than once per call: tokens of the rate are taken in batches and spent
// here, and a finished call's concurrency slot is kept for the next call
// for ReleaseDelay, then given back with the other idle ones in one
// script. Neither ever admits more than the limits across replicas (but
// for the lapsed leases of a replica cut off from Redis); what it costs is
// that tokens or slots idle on one replica are not at once free for
// another.
type Redis struct {
	rdb  redis.Scripter
	cfg  Config
	opts RedisOptions
	id   string // this replica's name in the hold hashes
	now  func() time.Time

	mu       sync.Mutex
	tenants  map[string]*redisTenant
	isClosed bool // under mu: no more delayed releases are scheduled

	closed chan struct{} // closed by Close: renewals stop
	wg     sync.WaitGroup
}

var _ Limiter = (*Redis)(nil)

// redisTenant is what this replica holds of one tenant's limits. The
// counters are under mu, which is never held across a round trip; sync
// lets one round trip at a time change what the replica holds in Redis.
type redisTenant struct {
	lim                     Limits
	rateKey, setKey, hashKy string
	sync                    chan struct{}

	mu sync.Mutex
	// Rate: tokens taken from Redis not yet spent, valid until until.
	tokens int
	until  time.Time
	// Calls admitted in the current and the previous TokenLease window:
	// how many tokens to take ahead.
	demand, demandPrev int
	window             time.Time
	// Concurrency: slots held in Redis, slots in use by permits, the
	// generation of the hold (a hold that lapsed starts a new one, and
	// permits of the old one give nothing back to it).
	held, inUse int
	epoch       uint64
	releasing   bool // a delayed release is scheduled
	synced      time.Time
	// Refusals of Redis remembered: no token of the rate comes back
	// before rateNone; the tenant's slots were all taken at full -
	// ReleaseDelay (a slot given back elsewhere reaches Redis within
	// ReleaseDelay).
	rateNone, full time.Time
}

// NewRedis returns a limiter on rdb (the *redis.Client the store uses
// will do).
func NewRedis(rdb redis.Scripter, cfg Config, opts RedisOptions) (*Redis, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if opts.LeaseTTL == 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	if opts.LeaseTTL < 30*time.Millisecond {
		return nil, fmt.Errorf("ratelimit: lease TTL %s is too short to be renewed", opts.LeaseTTL)
	}
	if opts.TokenLease < 0 || opts.ReleaseDelay < 0 {
		return nil, fmt.Errorf("ratelimit: token lease %s and release delay %s must not be negative", opts.TokenLease, opts.ReleaseDelay)
	}
	if opts.TokenLease == 0 {
		opts.TokenLease = DefaultTokenLease
	}
	if opts.ReleaseDelay == 0 {
		opts.ReleaseDelay = DefaultReleaseDelay
	}
	if opts.ReleaseDelay >= opts.LeaseTTL/3 {
		return nil, fmt.Errorf("ratelimit: release delay %s must be shorter than a third of the lease TTL %s", opts.ReleaseDelay, opts.LeaseTTL)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var id [12]byte
	_, _ = rand.Read(id[:])
	r := &Redis{
		rdb: rdb, cfg: cfg, opts: opts, id: hex.EncodeToString(id[:]), now: time.Now,
		tenants: map[string]*redisTenant{}, closed: make(chan struct{}),
	}
	r.wg.Add(1)
	go r.renewLoop()
	return r, nil
}

func (r *Redis) tenant(name string) *redisTenant {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tenants[name]
	if t == nil {
		base := r.opts.KeyPrefix + "rl:{" + name + "}:"
		t = &redisTenant{
			lim: r.cfg.limitsOf(name), rateKey: base + "rate", setKey: base + "holds", hashKy: base + "held",
			sync: make(chan struct{}, 1),
		}
		r.tenants[name] = t
	}
	return t
}

// Admit implements Limiter.
func (r *Redis) Admit(ctx context.Context, tenant string, calls int) (*Permit, error) {
	lim := r.cfg.limitsOf(tenant)
	if err := precheck(tenant, lim, calls); err != nil {
		return nil, err
	}
	if lim.Rate == 0 && lim.Concurrent == 0 {
		return newPermit(0, nil), nil
	}
	t := r.tenant(tenant)
	if p, err := r.admitLocally(t, tenant, calls); p != nil || err != nil {
		return p, err
	}
	// Not enough here: one round trip, one at a time per tenant (callers
	// queued behind it often find enough when it is back).
	select {
	case t.sync <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: rate limit: %w", store.ErrUnavailable, ctx.Err())
	}
	defer func() { <-t.sync }()
	if p, err := r.admitLocally(t, tenant, calls); p != nil || err != nil {
		return p, err
	}
	return r.admitShared(ctx, tenant, t, calls)
}

// admitLocally admits from what the replica already holds, or refuses
// what Redis refused a moment ago, or returns neither.
func (r *Redis) admitLocally(t *redisTenant, tenant string, calls int) (*Permit, error) {
	now := r.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.count(now, r.opts.TokenLease, 0)
	valid := 0
	if now.Before(t.until) {
		valid = t.tokens
	}
	if t.lim.Rate > 0 && valid < calls {
		if now.Before(t.rateNone) {
			// No token comes back before rateNone, whoever asks: refused
			// without asking Redis again.
			wait := t.rateNone.Sub(now) + time.Duration(calls-valid-1)*t.lim.interval()
			return nil, &ExceededError{Tenant: tenant, Limit: LimitRate, Calls: calls, Limits: t.lim, RetryAfter: wait}
		}
		return nil, nil
	}
	if t.lim.Concurrent > 0 && t.held-t.inUse < calls {
		if now.Before(t.full) {
			return nil, &ExceededError{Tenant: tenant, Limit: LimitConcurrency, Calls: calls, Limits: t.lim, RetryAfter: r.cfg.concurrencyRetry()}
		}
		return nil, nil
	}
	if t.lim.Rate > 0 {
		t.tokens -= calls
	}
	if t.lim.Concurrent > 0 {
		t.inUse += calls
	}
	t.count(now, r.opts.TokenLease, calls)
	return r.permit(t, calls), nil
}

// admitShared takes from Redis what the replica lacks, spending first
// what it holds; called with t.sync taken.
func (r *Redis) admitShared(ctx context.Context, tenant string, t *redisTenant, calls int) (*Permit, error) {
	lim := t.lim
	now := r.now()
	t.mu.Lock()
	// Reserve what is here, so that no other call spends it meanwhile.
	var have, spare int
	if lim.Rate > 0 && now.Before(t.until) {
		have = min(t.tokens, calls)
	}
	t.tokens -= have
	if lim.Concurrent > 0 {
		spare = max(0, min(t.held-t.inUse, calls))
		t.inUse += spare
	}
	epoch, held := t.epoch, t.held
	var need, want int
	var interval int64
	if lim.Rate > 0 {
		need = calls - have
		interval = max(1, lim.interval().Microseconds())
		ahead := max(1, min(lim.burst(), int(math.Ceil(lim.Rate*r.opts.TokenLease.Seconds()))))
		want = max(need, min(t.demand+t.demandPrev, ahead))
	}
	slots := 0
	if lim.Concurrent > 0 {
		slots = calls - spare
	}
	t.mu.Unlock()

	undo := func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		// Only admissions change the lease, and this one holds sync:
		// the reserved tokens are still of the lease they came from.
		t.tokens += have
		if t.epoch == epoch {
			t.inUse -= spare
		}
		r.scheduleRelease(t)
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	res, err := scriptAdmit.Run(ctx, r.rdb, []string{t.rateKey, t.setKey, t.hashKy},
		need, want, interval, lim.burst(), slots, lim.Concurrent, r.opts.LeaseTTL.Microseconds(), r.id).Int64Slice()
	if err == nil && len(res) != 3 {
		err = fmt.Errorf("unexpected reply %v", res)
	}
	if err != nil {
		undo()
		return nil, fmt.Errorf("%w: rate limit: %w", store.ErrUnavailable, err)
	}
	switch res[0] {
	case 1:
		undo()
		wait := time.Duration(res[1]) * time.Microsecond
		t.mu.Lock()
		t.rateNone = now.Add(wait - time.Duration(need-1)*lim.interval())
		t.mu.Unlock()
		return nil, &ExceededError{Tenant: tenant, Limit: LimitRate, Calls: calls, Limits: lim, RetryAfter: time.Duration(res[1]) * time.Microsecond}
	case 2:
		undo()
		t.mu.Lock()
		t.full = now.Add(r.opts.ReleaseDelay)
		t.mu.Unlock()
		return nil, &ExceededError{Tenant: tenant, Limit: LimitConcurrency, Calls: calls, Limits: lim, RetryAfter: r.cfg.concurrencyRetry()}
	}
	got := r.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if need > 0 {
		// What was here is spent; the rest of the grant is all new.
		t.tokens, t.until = int(res[1])-need, got.Add(r.opts.TokenLease)
	}
	if slots > 0 {
		t.synced = got
		if mine := int(res[2]); mine != held+slots || t.epoch != epoch {
			// The hold lapsed (Redis was out of reach longer than the
			// TTL) and Redis counts only these slots now: the permits of
			// the old hold give nothing back to the new one.
			r.opts.Logger.Warn("concurrency hold had lapsed; starting a new one", "tenant", tenant, "held", held, "redis", mine-slots)
			t.epoch++
			t.held, t.inUse = mine, calls
		} else {
			t.held += slots
			t.inUse += slots
		}
	}
	t.count(got, r.opts.TokenLease, calls)
	return r.permit(t, calls), nil
}

// count moves the demand window along and adds calls admitted now.
func (t *redisTenant) count(now time.Time, window time.Duration, calls int) {
	if since := now.Sub(t.window); since >= window {
		t.demandPrev = t.demand
		if since >= 2*window {
			t.demandPrev = 0
		}
		t.demand, t.window = 0, now
	}
	t.demand += calls
}

// permit is the permit of calls admitted; called with t.mu held.
func (r *Redis) permit(t *redisTenant, calls int) *Permit {
	if t.lim.Concurrent == 0 {
		return newPermit(0, nil)
	}
	epoch := t.epoch
	return newPermit(calls, func(n int, _ bool) {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.full = time.Time{} // a slot is free here now
		if t.epoch != epoch {
			return
		}
		t.inUse -= n
		r.scheduleRelease(t)
	})
}

// scheduleRelease gives idle slots back to Redis after ReleaseDelay,
// unless a call took them again; called with t.mu held.
func (r *Redis) scheduleRelease(t *redisTenant) {
	if t.releasing || t.held <= t.inUse {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.isClosed {
		return
	}
	t.releasing = true
	r.wg.Add(1)
	time.AfterFunc(r.opts.ReleaseDelay, func() {
		defer r.wg.Done()
		r.releaseIdle(t)
	})
}

func (r *Redis) releaseIdle(t *redisTenant) {
	t.sync <- struct{}{}
	defer func() { <-t.sync }()
	t.mu.Lock()
	t.releasing = false
	// Taken off at once, so that no call is admitted on slots on their
	// way back.
	idle, epoch := t.held-t.inUse, t.epoch
	if idle > 0 {
		t.held -= idle
	}
	t.mu.Unlock()
	if idle <= 0 {
		return
	}
	// The caller's context is gone; the release must still reach Redis,
	// or the slots wait for the TTL.
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.Timeout)
	defer cancel()
	mine, err := scriptRelease.Run(ctx, r.rdb, []string{t.setKey, t.hashKy}, idle, r.id).Int()
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		r.opts.Logger.Warn("releasing concurrency slots failed; trying again", "key", t.hashKy, "err", err)
		if t.epoch == epoch {
			t.held += idle
			r.scheduleRelease(t)
		}
		return
	}
	if mine != t.held {
		r.opts.Logger.Warn("concurrency hold had lapsed", "key", t.hashKy, "held", t.held, "redis", mine)
	}
}

// renewLoop keeps the holds of this replica alive: every LeaseTTL/3, a
// tenant whose hold no admission refreshed meanwhile gets one renewal.
func (r *Redis) renewLoop() {
	defer r.wg.Done()
	tick := time.NewTicker(r.opts.LeaseTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-r.closed:
			return
		case <-tick.C:
		}
		r.mu.Lock()
		ts := make([]*redisTenant, 0, len(r.tenants))
		for _, t := range r.tenants {
			ts = append(ts, t)
		}
		r.mu.Unlock()
		for _, t := range ts {
			r.renew(t)
		}
	}
}

func (r *Redis) renew(t *redisTenant) {
	t.sync <- struct{}{}
	defer func() { <-t.sync }()
	t.mu.Lock()
	due := t.held > 0 && r.now().Sub(t.synced) >= r.opts.LeaseTTL/3
	t.mu.Unlock()
	if !due {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.Timeout)
	mine, err := scriptRenew.Run(ctx, r.rdb, []string{t.setKey, t.hashKy}, r.opts.LeaseTTL.Microseconds(), r.id).Int()
	cancel()
	if err != nil {
		// The next tick tries again; if Redis stays away longer than the
		// TTL the hold lapses, which errs toward admitting.
		r.opts.Logger.Warn("renewing concurrency slots failed", "key", t.hashKy, "err", err)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.synced = r.now()
	if mine < 0 {
		r.opts.Logger.Warn("concurrency slots expired before renewal", "key", t.hashKy, "lost", t.held)
		t.epoch++
		t.held, t.inUse = 0, 0
	}
}

// Close stops renewals and gives idle slots back; call it after the
// server stopped, before closing the Redis client. Slots of permits not
// yet released lapse after LeaseTTL.
func (r *Redis) Close() {
	r.mu.Lock()
	if !r.isClosed {
		r.isClosed = true
		close(r.closed)
	}
	r.mu.Unlock()
	r.wg.Wait()
	r.mu.Lock()
	ts := make([]*redisTenant, 0, len(r.tenants))
	for _, t := range r.tenants {
		ts = append(ts, t)
	}
	r.mu.Unlock()
	for _, t := range ts {
		r.releaseIdle(t)
	}
}
