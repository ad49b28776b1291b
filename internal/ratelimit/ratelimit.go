// Package ratelimit bounds what each tenant may run: tool calls per second
// (GCRA, a token bucket kept as one timestamp) and calls in flight. Local
// keeps the state in this process; Redis shares it between replicas with
// one atomic script per admission. Over a limit, Admit returns an
// *ExceededError, which is a ResourceExhausted status with a
// google.rpc.RetryInfo detail.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Limits are one tenant's limits. Zero values mean no limit.
type Limits struct {
	// Rate is the sustained number of tool calls per second.
	Rate float64
	// Burst is how many calls may arrive at once after a quiet period;
	// ceil(Rate), at least 1, when zero. A batch larger than Burst can
	// never be admitted.
	Burst int
	// Concurrent is how many admitted calls may be in flight at once.
	Concurrent int
}

func (l Limits) burst() int {
	if l.Burst > 0 {
		return l.Burst
	}
	return max(1, int(math.Ceil(l.Rate)))
}

// interval is GCRA's emission interval: the time one call's share of the
// rate takes to come back.
func (l Limits) interval() time.Duration {
	return time.Duration(float64(time.Second) / l.Rate)
}

func (l Limits) check() error {
	if l.Rate < 0 || math.IsNaN(l.Rate) || math.IsInf(l.Rate, 0) || l.Burst < 0 || l.Concurrent < 0 {
		return fmt.Errorf("limits %+v: rate, burst and concurrency must be finite and not negative", l)
	}
	if l.Rate > 0 && l.interval() <= 0 {
		return fmt.Errorf("limits %+v: rate too high", l)
	}
	return nil
}

// Config is the limits of every tenant.
type Config struct {
	// Default applies to tenants not listed in Tenants.
	Default Limits
	// Tenants overrides Default per tenant.
	Tenants map[string]Limits
	// ConcurrencyRetry is the delay suggested to a client refused by the
	// concurrency limit, which has no schedule of its own (calls end when
	// they end); DefaultConcurrencyRetry if zero.
	ConcurrencyRetry time.Duration
}

// DefaultConcurrencyRetry is Config.ConcurrencyRetry's default.
const DefaultConcurrencyRetry = time.Second

func (c Config) check() error {
	if err := c.Default.check(); err != nil {
		return err
	}
	for t, l := range c.Tenants {
		if err := l.check(); err != nil {
			return fmt.Errorf("tenant %q: %w", t, err)
		}
	}
	if c.ConcurrencyRetry < 0 {
		return errors.New("concurrency retry must not be negative")
	}
	return nil
}

// Limited reports whether any tenant has a limit: without one no limiter
// is needed.
func (c Config) Limited() bool {
	if c.Default.limited() {
		return true
	}
	for _, l := range c.Tenants {
		if l.limited() {
			return true
		}
	}
	return false
}

func (l Limits) limited() bool { return l.Rate > 0 || l.Concurrent > 0 }

func (c Config) limitsOf(tenant string) Limits {
	if l, ok := c.Tenants[tenant]; ok {
		return l
	}
	return c.Default
}

func (c Config) concurrencyRetry() time.Duration {
	if c.ConcurrencyRetry > 0 {
		return c.ConcurrencyRetry
	}
	return DefaultConcurrencyRetry
}

// Limiter admits tool calls.
type Limiter interface {
	// Admit admits a batch of calls for tenant, all or none: it takes
	// calls from the tenant's rate and holds calls slots of its
	// concurrency limit until the permit gives them back. Over a limit
	// the error is an *ExceededError; a backend that cannot be reached
	// fails closed with an error wrapping store.ErrUnavailable.
	Admit(ctx context.Context, tenant string, calls int) (*Permit, error)
}

// precheck refuses batches that no wait would let in, before any state is
// touched.
func precheck(tenant string, l Limits, calls int) error {
	if calls < 1 {
		return fmt.Errorf("ratelimit: admit %d calls: want at least 1", calls)
	}
	if l.Rate > 0 && calls > l.burst() {
		return &ExceededError{Tenant: tenant, Limit: LimitRate, Calls: calls, Limits: l}
	}
	if l.Concurrent > 0 && calls > l.Concurrent {
		return &ExceededError{Tenant: tenant, Limit: LimitConcurrency, Calls: calls, Limits: l}
	}
	return nil
}
