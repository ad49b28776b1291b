package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Local keeps each tenant's limits in this process: right for one
// replica, or as a per-replica bound beside a shared one.
type Local struct {
	cfg Config
	now func() time.Time

	mu      sync.Mutex
	tenants map[string]*localState
}

type localState struct {
	tat  time.Time
	held int
}

var _ Limiter = (*Local)(nil)

// NewLocal returns a Local limiter. now replaces the clock in tests; nil
// is time.Now.
func NewLocal(cfg Config, now func() time.Time) (*Local, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Local{cfg: cfg, now: now, tenants: map[string]*localState{}}, nil
}

// Admit implements Limiter.
func (l *Local) Admit(_ context.Context, tenant string, calls int) (*Permit, error) {
	lim := l.cfg.limitsOf(tenant)
	if err := precheck(tenant, lim, calls); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.tenants[tenant]
	if s == nil {
		s = &localState{}
		l.tenants[tenant] = s
	}
	var next time.Time
	if lim.Rate > 0 {
		var wait time.Duration
		next, wait = gcra(l.now(), s.tat, lim, calls)
		if wait > 0 {
			return nil, &ExceededError{Tenant: tenant, Limit: LimitRate, Calls: calls, Limits: lim, RetryAfter: wait}
		}
	}
	if lim.Concurrent > 0 && s.held+calls > lim.Concurrent {
		return nil, &ExceededError{Tenant: tenant, Limit: LimitConcurrency, Calls: calls, Limits: lim, RetryAfter: l.cfg.concurrencyRetry()}
	}
	// Both limits pass: only now is either one charged.
	if lim.Rate > 0 {
		s.tat = next
	}
	if lim.Concurrent == 0 {
		return newPermit(0, nil), nil
	}
	s.held += calls
	return newPermit(calls, func(n int, _ bool) {
		l.mu.Lock()
		s.held -= n
		l.mu.Unlock()
	}), nil
}
