package ratelimit_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/ratelimit"
)

func TestLocal(t *testing.T) {
	runSuite(t, func(t *testing.T, cfg ratelimit.Config) ratelimit.Limiter {
		l, err := ratelimit.NewLocal(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestLocalRateRefills(t *testing.T) {
	clk := &clock{t: time.Unix(1_900_000_000, 0)}
	l, err := ratelimit.NewLocal(ratelimit.Config{Default: ratelimit.Limits{Rate: 10, Burst: 2}}, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	admit(t, l, "a", 2)
	if ex := refused(t, l, "a", 1, ratelimit.LimitRate); ex.RetryAfter != 100*time.Millisecond {
		t.Errorf("RetryAfter = %s, want 100ms (one call at 10/s)", ex.RetryAfter)
	}
	if ex := refused(t, l, "a", 2, ratelimit.LimitRate); ex.RetryAfter != 200*time.Millisecond {
		t.Errorf("RetryAfter for 2 = %s, want 200ms", ex.RetryAfter)
	}
	clk.Add(100 * time.Millisecond)
	admit(t, l, "a", 1)
	refused(t, l, "a", 1, ratelimit.LimitRate)
	// A long quiet period refills only up to the burst.
	clk.Add(time.Hour)
	admit(t, l, "a", 2)
	refused(t, l, "a", 1, ratelimit.LimitRate)

	// Over one simulated minute at a steady 10/s, all pass; at 20/s,
	// half are refused.
	l, _ = ratelimit.NewLocal(ratelimit.Config{Default: ratelimit.Limits{Rate: 10, Burst: 1}}, clk.Now)
	ok := 0
	for range 1200 {
		clk.Add(50 * time.Millisecond)
		if _, err := l.Admit(ctx, "b", 1); err == nil {
			ok++
		}
	}
	if ok != 600 {
		t.Errorf("at twice the rate %d of 1200 admitted, want 600", ok)
	}
}

func TestLocalConcurrentAdmissions(t *testing.T) {
	l, err := ratelimit.NewLocal(ratelimit.Config{Default: ratelimit.Limits{Concurrent: 5}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var held []*ratelimit.Permit
	for range 40 {
		wg.Go(func() {
			p, err := l.Admit(ctx, "a", 1)
			if err == nil {
				mu.Lock()
				held = append(held, p)
				mu.Unlock()
			} else if !errors.Is(err, ratelimit.ErrExceeded) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(held) != 5 {
		t.Errorf("%d of 40 racing admissions got a slot, want 5", len(held))
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []ratelimit.Config{
		{Default: ratelimit.Limits{Rate: -1}},
		{Default: ratelimit.Limits{Burst: -1}},
		{Default: ratelimit.Limits{Concurrent: -1}},
		{Tenants: map[string]ratelimit.Limits{"a": {Rate: -1}}},
		{ConcurrencyRetry: -time.Second},
	} {
		if _, err := ratelimit.NewLocal(cfg, nil); err == nil {
			t.Errorf("NewLocal(%+v) accepted", cfg)
		}
	}
}
