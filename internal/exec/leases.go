package exec

import (
	"context"
	"sync"
	"time"

	"github.com/toold/toold/internal/store"
)

// leases renews the claims of this replica's running calls, so that a
// call that runs longer than one lease is not taken for a dead replica's.
// A call that finishes within its first lease costs no renewal.
type leases struct {
	e    *Engine
	mu   sync.Mutex
	byOw map[string]map[store.CallRef]struct{}
	stop chan struct{}
	once sync.Once
}

func newLeases(e *Engine) *leases {
	return &leases{e: e, byOw: make(map[string]map[store.CallRef]struct{}), stop: make(chan struct{})}
}

func (l *leases) add(owner string, ref store.CallRef) {
	l.once.Do(func() { go l.loop() })
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byOw[owner] == nil {
		l.byOw[owner] = make(map[store.CallRef]struct{})
	}
	l.byOw[owner][ref] = struct{}{}
}

func (l *leases) drop(owner string, ref store.CallRef) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byOw[owner], ref)
	if len(l.byOw[owner]) == 0 {
		delete(l.byOw, owner)
	}
}

func (l *leases) loop() {
	lease := l.e.cfg.Journal.Times.Lease
	t := time.NewTicker(lease / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.renew(lease)
		}
	}
}

func (l *leases) renew(lease time.Duration) {
	l.mu.Lock()
	work := make(map[string][]store.CallRef, len(l.byOw))
	for o, refs := range l.byOw {
		for r := range refs {
			work[o] = append(work[o], r)
		}
	}
	l.mu.Unlock()
	for o, refs := range work {
		ctx, cancel := context.WithTimeout(context.Background(), lease/3)
		if err := l.e.cfg.Store.RenewLeases(ctx, o, refs, lease); err != nil {
			l.e.cfg.Logger.Warn("renewing call leases failed", "owner", o, "calls", len(refs), "error", err)
		}
		cancel()
	}
}

func (l *leases) close() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
}
