package ratelimit

import (
	"context"
	"sync"
)

// Permit holds the concurrency slots of an admitted batch. Every permit
// must be released, or the slots stay taken (in Redis, until the lease of
// a stopped replica expires). The methods are safe on a nil permit and
// from several goroutines.
type Permit struct {
	mu       sync.Mutex
	held     int
	detached bool
	give     func(n int, last bool) // gives n slots back; last: none remain
}

func newPermit(slots int, give func(n int, last bool)) *Permit {
	return &Permit{held: slots, give: give}
}

// Done gives back the slot of one finished call, so that a long batch
// run one call after another does not hold a slot for calls already done.
func (p *Permit) Done() {
	p.put(1)
}

// Release gives back every slot still held. Calling it again does nothing.
func (p *Permit) Release() {
	p.put(-1)
}

func (p *Permit) put(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == 0 {
		return
	}
	if n < 0 || n > p.held {
		n = p.held
	}
	p.held -= n
	p.give(n, p.held == 0)
}

// Detach takes the permit over from the stream interceptor: the
// interceptor then no longer releases it when the stream ends, and the
// caller must. For calls that go on after their client went away.
func (p *Permit) Detach() *Permit {
	if p != nil {
		p.mu.Lock()
		p.detached = true
		p.mu.Unlock()
	}
	return p
}

func (p *Permit) releaseAttached() {
	if p == nil {
		return
	}
	p.mu.Lock()
	d := p.detached
	p.mu.Unlock()
	if !d {
		p.Release()
	}
}

type permitKey struct{}

// PermitFrom is the permit the stream interceptor obtained for the
// stream's request, nil if it obtained none.
func PermitFrom(ctx context.Context) *Permit {
	p, _ := ctx.Value(permitKey{}).(*Permit)
	return p
}

func withPermit(ctx context.Context, p *Permit) context.Context {
	return context.WithValue(ctx, permitKey{}, p)
}
