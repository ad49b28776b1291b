package ratelimit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/ratelimit"
	"github.com/toold/toold/internal/store/redistest"
)

// roundTrips counts what a client sends to Redis: one per command, one
// per pipeline.
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// load has callers goroutines each admit one call and release it, calls
// times (or until the deadline, if not zero), as a server's callers do;
// it returns how many were admitted.
func load(t *testing.T, l ratelimit.Limiter, callers, calls int, hold func()) (admitted int64) {
	return loadUntil(t, l, callers, calls, time.Time{}, hold)
}

func loadUntil(t *testing.T, l ratelimit.Limiter, callers, calls int, deadline time.Time, hold func()) (admitted int64) {
	t.Helper()
	var n atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for i := 0; deadline.IsZero() && i < calls || !deadline.IsZero() && time.Now().Before(deadline); i++ {
				p, err := l.Admit(ctx, "team", 1)
				if errors.Is(err, ratelimit.ErrExceeded) {
					if !deadline.IsZero() {
						time.Sleep(200 * time.Microsecond)
					}
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				n.Add(1)
				hold()
				p.Release()
			}
		})
	}
	wg.Wait()
	return n.Load()
}

// TestRedisRoundTripsPerCall counts the commands a replica sends under a
// steady load of 16 callers: admission, commit and release together take
// at most one round trip per call (much less: tokens are taken in
// batches, slots are kept for the next call).
func TestRedisRoundTripsPerCall(t *testing.T) {
	addr := redistest.Start(t)
	for _, tc := range []struct {
		name string
		lim  ratelimit.Limits
		// For is how long the load lasts when a rate is reached (refused
		// calls take no time, so a fixed count would all fall within the
		// wait Redis gives); every call counts, admitted or refused, as
		// each is an Execute the server answers.
		For time.Duration
	}{
		{"rate", ratelimit.Limits{Rate: 1e6, Burst: 1000}, 0},
		{"concurrency", ratelimit.Limits{Concurrent: 16}, 0},
		{"both", ratelimit.Limits{Rate: 1e6, Burst: 1000, Concurrent: 16}, 0},
		{"a rate reached", ratelimit.Limits{Rate: 500, Burst: 50, Concurrent: 16}, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, addr)
			hook := &roundTrips{}
			c.AddHook(hook)
			l, err := ratelimit.NewRedis(c, ratelimit.Config{Default: tc.lim}, ratelimit.RedisOptions{KeyPrefix: t.Name() + ":"})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			const callers, calls = 16, 300
			load(t, l, callers, 20, func() {}) // warm up: scripts loaded, slots taken
			before := hook.n.Load()
			var admitted int64
			perCallOf := int64(callers * calls)
			if tc.For > 0 {
				cl := &countingLimiter{Limiter: l}
				admitted = loadUntil(t, cl, callers, 0, time.Now().Add(tc.For), func() {})
				perCallOf = max(cl.calls.Load(), 1)
			} else {
				admitted = load(t, l, callers, calls, func() {})
			}
			sent := hook.n.Load() - before
			perCall := float64(sent) / float64(perCallOf)
			t.Logf("%d round trips for %d calls (%d admitted): %.3f per call", sent, perCallOf, admitted, perCall)
			if perCall > 1 {
				t.Errorf("%.2f round trips per call, want at most 1", perCall)
			}
			if admitted == 0 {
				t.Error("nothing admitted")
			}
		})
	}
}

// TestRedisReplicasStayWithinLimits runs two replicas on one Redis under
// load: calls in flight across both never pass the concurrency limit, and
// admitted calls stay within the rate's bound (docs/limits.md): burst +
// rate × (elapsed + TokenLease).
func TestRedisReplicasStayWithinLimits(t *testing.T) {
	addr := redistest.Start(t)
	t.Run("concurrency", func(t *testing.T) {
		cfg := ratelimit.Config{Default: ratelimit.Limits{Concurrent: 5}}
		a, _ := replica(t, addr, "conc:", cfg, 0)
		b, _ := replica(t, addr, "conc:", cfg, 0)
		var inFlight, peak atomic.Int64
		hold := func() {
			n := inFlight.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(200 * time.Microsecond)
			inFlight.Add(-1)
		}
		var wg sync.WaitGroup
		var admitted atomic.Int64
		for _, l := range []ratelimit.Limiter{a, b} {
			wg.Go(func() { admitted.Add(load(t, l, 8, 100, hold)) })
		}
		wg.Wait()
		t.Logf("%d admitted of 1600, at most %d in flight", admitted.Load(), peak.Load())
		if peak.Load() > 5 {
			t.Errorf("%d calls in flight across the replicas, limit 5", peak.Load())
		}
		if admitted.Load() < 5 {
			t.Errorf("%d admitted", admitted.Load())
		}
	})
	t.Run("rate", func(t *testing.T) {
		const rate, burst = 400.0, 20
		cfg := ratelimit.Config{Default: ratelimit.Limits{Rate: rate, Burst: burst}}
		a, _ := replica(t, addr, "rate:", cfg, 0)
		b, _ := replica(t, addr, "rate:", cfg, 0)
		start := time.Now()
		var wg sync.WaitGroup
		var admitted atomic.Int64
		for _, l := range []ratelimit.Limiter{a, b} {
			wg.Go(func() { admitted.Add(loadUntil(t, l, 8, 0, start.Add(300*time.Millisecond), func() {})) })
		}
		wg.Wait()
		elapsed := time.Since(start)
		bound := burst + rate*(elapsed+ratelimit.DefaultTokenLease).Seconds()
		t.Logf("%d admitted in %s; bound %.0f", admitted.Load(), elapsed, bound)
		if float64(admitted.Load()) > bound {
			t.Errorf("%d admitted in %s, over the bound %.0f", admitted.Load(), elapsed, bound)
		}
		if admitted.Load() < burst {
			t.Errorf("%d admitted, fewer than the burst %d", admitted.Load(), burst)
		}
	})
}

// countingLimiter counts the calls that ask for admission.
type countingLimiter struct {
	ratelimit.Limiter
	calls atomic.Int64
}

func (c *countingLimiter) Admit(ctx context.Context, tenant string, n int) (*ratelimit.Permit, error) {
	c.calls.Add(1)
	return c.Limiter.Admit(ctx, tenant, n)
}
