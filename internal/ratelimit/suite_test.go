package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toold/toold/internal/ratelimit"
)

// newLimiter builds the limiter under test with cfg.
type newLimiter func(t *testing.T, cfg ratelimit.Config) ratelimit.Limiter

// slow is a rate so low that no share comes back while a test runs, so
// the suite needs no clock control and runs the same on Redis.
const slow = 1.0 / 3600

var ctx = context.Background()

func admit(t *testing.T, l ratelimit.Limiter, tenant string, n int) *ratelimit.Permit {
	t.Helper()
	p, err := l.Admit(ctx, tenant, n)
	if err != nil {
		t.Fatalf("Admit(%q, %d): %v", tenant, n, err)
	}
	return p
}

func refused(t *testing.T, l ratelimit.Limiter, tenant string, n int, limit string) *ratelimit.ExceededError {
	t.Helper()
	p, err := l.Admit(ctx, tenant, n)
	var ex *ratelimit.ExceededError
	if !errors.As(err, &ex) {
		p.Release()
		t.Fatalf("Admit(%q, %d) = %v, want refused by %s", tenant, n, err, limit)
	}
	if ex.Limit != limit || ex.Tenant != tenant || ex.Calls != n {
		t.Fatalf("refused by %s for %q (%d calls), want %s for %q (%d)", ex.Limit, ex.Tenant, ex.Calls, limit, tenant, n)
	}
	if !errors.Is(err, ratelimit.ErrExceeded) {
		t.Error("errors.Is(err, ErrExceeded) is false")
	}
	return ex
}

// runSuite is what every Limiter must do.
func runSuite(t *testing.T, newL newLimiter) {
	t.Run("rate admits the burst then refuses with the wait", func(t *testing.T) {
		l := newL(t, ratelimit.Config{Default: ratelimit.Limits{Rate: slow, Burst: 3}})
		admit(t, l, "a", 2)
		admit(t, l, "a", 1)
		ex := refused(t, l, "a", 1, ratelimit.LimitRate)
		// One call's share comes back after 1/rate = one hour.
		if ex.RetryAfter <= 59*time.Minute || ex.RetryAfter > time.Hour {
			t.Errorf("RetryAfter = %s, want just under an hour", ex.RetryAfter)
		}
	})
	t.Run("a refused batch takes nothing", func(t *testing.T) {
		l := newL(t, ratelimit.Config{Default: ratelimit.Limits{Rate: slow, Burst: 3}})
		admit(t, l, "a", 2)
		ex := refused(t, l, "a", 2, ratelimit.LimitRate)
		if ex.RetryAfter <= 0 {
			t.Errorf("RetryAfter = %s, want positive", ex.RetryAfter)
		}
		admit(t, l, "a", 1)
		refused(t, l, "a", 1, ratelimit.LimitRate)
	})
	t.Run("a batch over the burst is refused for good", func(t *testing.T) {
		l := newL(t, ratelimit.Config{Default: ratelimit.Limits{Rate: slow, Burst: 3}})
		if ex := refused(t, l, "a", 4, ratelimit.LimitRate); ex.RetryAfter != 0 {
			t.Errorf("RetryAfter = %s, want 0: waiting cannot help", ex.RetryAfter)
		}
		admit(t, l, "a", 3)
	})
	t.Run("tenants are apart and may have their own limits", func(t *testing.T) {
		l := newL(t, ratelimit.Config{
			Default: ratelimit.Limits{Rate: slow, Burst: 1},
			Tenants: map[string]ratelimit.Limits{"big": {Rate: slow, Burst: 5}},
		})
		admit(t, l, "a", 1)
		refused(t, l, "a", 1, ratelimit.LimitRate)
		admit(t, l, "b", 1)
		admit(t, l, "big", 5)
		refused(t, l, "big", 1, ratelimit.LimitRate)
	})
	t.Run("concurrency slots come back per finished call", func(t *testing.T) {
		l := newL(t, ratelimit.Config{Default: ratelimit.Limits{Concurrent: 3}, ConcurrencyRetry: 250 * time.Millisecond})
		batch := admit(t, l, "a", 2)
		one := admit(t, l, "a", 1)
		ex := refused(t, l, "a", 1, ratelimit.LimitConcurrency)
		if ex.RetryAfter != 250*time.Millisecond {
			t.Errorf("RetryAfter = %s, want the configured 250ms", ex.RetryAfter)
		}
		batch.Done()
		p := admit(t, l, "a", 1)
		refused(t, l, "a", 1, ratelimit.LimitConcurrency)
		one.Release()
		one.Release() // a second release gives nothing back twice
		admit(t, l, "a", 1)
		refused(t, l, "a", 1, ratelimit.LimitConcurrency)
		batch.Release()
		p.Release()
		admit(t, l, "a", 2)
		refused(t, l, "a", 2, ratelimit.LimitConcurrency)
		if ex := refused(t, l, "a", 4, ratelimit.LimitConcurrency); ex.RetryAfter != 0 {
			t.Errorf("a batch over the concurrency limit: RetryAfter = %s, want 0", ex.RetryAfter)
		}
	})
	t.Run("refused by concurrency, the rate is not charged", func(t *testing.T) {
		l := newL(t, ratelimit.Config{Default: ratelimit.Limits{Rate: slow, Burst: 2, Concurrent: 1}})
		p := admit(t, l, "a", 1)
		refused(t, l, "a", 1, ratelimit.LimitConcurrency)
		p.Release()
		p = admit(t, l, "a", 1)
		p.Release()
		refused(t, l, "a", 1, ratelimit.LimitRate)
	})
	t.Run("no limits", func(t *testing.T) {
		l := newL(t, ratelimit.Config{})
		for range 50 {
			admit(t, l, "a", 20)
		}
	})
	t.Run("zero calls is a caller error", func(t *testing.T) {
		l := newL(t, ratelimit.Config{Default: ratelimit.Limits{Rate: slow}})
		if _, err := l.Admit(ctx, "a", 0); err == nil || errors.Is(err, ratelimit.ErrExceeded) {
			t.Errorf("Admit(0) = %v", err)
		}
	})
}
