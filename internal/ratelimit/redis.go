package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
)

// DefaultLeaseTTL is RedisOptions.LeaseTTL's default.
const DefaultLeaseTTL = 30 * time.Second

// RedisOptions configure the shared limiter.
type RedisOptions struct {
	// KeyPrefix starts every key ("toold:" gives toold:rl:{tenant}:rate).
	KeyPrefix string
	// LeaseTTL is how long a concurrency slot outlives the replica that
	// holds it: a live permit renews its leases every LeaseTTL/3.
	LeaseTTL time.Duration
	// Timeout bounds one Redis round trip (admission, renewal, release);
	// 2 s if zero.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Redis shares each tenant's limits between every replica that uses the
// same Redis and key prefix.
type Redis struct {
	rdb  redis.Scripter
	cfg  Config
	opts RedisOptions

	closed    chan struct{} // closed by Close: renewals stop
	closeOnce sync.Once
	wg        sync.WaitGroup // renewal goroutines
}

var _ Limiter = (*Redis)(nil)

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
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Redis{rdb: rdb, cfg: cfg, opts: opts, closed: make(chan struct{})}, nil
}

func (r *Redis) keys(tenant string) (rate, leases string) {
	base := r.opts.KeyPrefix + "rl:{" + tenant + "}:"
	return base + "rate", base + "leases"
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
	rateKey, leaseKey := r.keys(tenant)
	var members []string
	if lim.Concurrent > 0 {
		members = leaseMembers(calls)
	}
	var interval int64
	if lim.Rate > 0 {
		interval = max(1, lim.interval().Microseconds())
	}
	args := []any{calls, interval, lim.burst(), lim.Concurrent, r.opts.LeaseTTL.Microseconds()}
	for _, m := range members {
		args = append(args, m)
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	res, err := scriptAdmit.Run(ctx, r.rdb, []string{rateKey, leaseKey}, args...).Int64Slice()
	if err != nil {
		return nil, fmt.Errorf("%w: rate limit: %w", store.ErrUnavailable, err)
	}
	if len(res) != 2 {
		return nil, fmt.Errorf("%w: rate limit: unexpected reply %v", store.ErrUnavailable, res)
	}
	switch res[0] {
	case 1:
		return nil, &ExceededError{Tenant: tenant, Limit: LimitRate, Calls: calls, Limits: lim, RetryAfter: time.Duration(res[1]) * time.Microsecond}
	case 2:
		return nil, &ExceededError{Tenant: tenant, Limit: LimitConcurrency, Calls: calls, Limits: lim, RetryAfter: r.cfg.concurrencyRetry()}
	}
	if len(members) == 0 {
		return newPermit(0, nil), nil
	}
	return r.leasePermit(leaseKey, members), nil
}

// leaseMembers names one lease per call: a random permit id and the
// call's index, unique across replicas without coordination.
func leaseMembers(n int) []string {
	var id [12]byte
	_, _ = rand.Read(id[:])
	p := hex.EncodeToString(id[:]) + ":"
	out := make([]string, n)
	for i := range out {
		out[i] = p + strconv.Itoa(i)
	}
	return out
}

// leasePermit returns the permit of admitted leases and starts renewing
// them until they are all given back.
func (r *Redis) leasePermit(key string, members []string) *Permit {
	var mu sync.Mutex
	live := members
	stop := make(chan struct{})
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.renew(key, stop, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), live...)
		})
	}()
	return newPermit(len(members), func(n int, last bool) {
		mu.Lock()
		gone := live[len(live)-n:]
		live = live[:len(live)-n]
		mu.Unlock()
		if last {
			close(stop)
		}
		r.release(key, gone)
	})
}

func (r *Redis) renew(key string, stop <-chan struct{}, live func() []string) {
	t := time.NewTicker(r.opts.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-r.closed:
			return
		case <-t.C:
		}
		members := live()
		if len(members) == 0 {
			return
		}
		args := []any{r.opts.LeaseTTL.Microseconds()}
		for _, m := range members {
			args = append(args, m)
		}
		ctx, cancel := context.WithTimeout(context.Background(), r.opts.Timeout)
		n, err := scriptRenew.Run(ctx, r.rdb, []string{key}, args...).Int()
		cancel()
		switch {
		case err != nil:
			// The next tick tries again; if Redis stays away longer than
			// the TTL the leases lapse, which errs toward admitting.
			r.opts.Logger.Warn("renewing concurrency leases failed", "key", key, "err", err)
		case n < len(members):
			r.opts.Logger.Warn("concurrency leases expired before renewal", "key", key, "lost", len(members)-n)
		}
	}
}

func (r *Redis) release(key string, members []string) {
	args := make([]any, len(members))
	for i, m := range members {
		args[i] = m
	}
	// The caller's context may be gone (the stream ended); the release
	// must still reach Redis, or the slots wait for the TTL.
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.Timeout)
	defer cancel()
	if err := scriptRelease.Run(ctx, r.rdb, []string{key}, args...).Err(); err != nil {
		r.opts.Logger.Warn("releasing concurrency leases failed; they expire by themselves", "key", key, "err", err)
	}
}

// Close stops renewing leases and waits for the renewals to end; call it
// after the server stopped, before closing the Redis client. Leases of
// permits not yet released then lapse after LeaseTTL.
func (r *Redis) Close() {
	r.closeOnce.Do(func() { close(r.closed) })
	r.wg.Wait()
}
