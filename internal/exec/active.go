package exec

import (
	"context"
	"sync"
)

// activeCalls tracks running batches per session so that deleting a
// session, or shutting down, can cancel them and wait for their processes.
type activeCalls struct {
	mu   sync.Mutex
	next uint64
	runs map[string]map[uint64]*activeRun
}

type activeRun struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

func newActiveCalls() *activeCalls {
	return &activeCalls{runs: make(map[string]map[uint64]*activeRun)}
}

// add derives a cancellable context for one batch; done must be called
// when the batch has finished.
func (a *activeCalls) add(ctx context.Context, sessionID string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	r := &activeRun{cancel: cancel, done: make(chan struct{})}
	a.mu.Lock()
	a.next++
	id := a.next
	if a.runs[sessionID] == nil {
		a.runs[sessionID] = make(map[uint64]*activeRun)
	}
	a.runs[sessionID][id] = r
	a.mu.Unlock()
	return ctx, func() {
		cancel(nil)
		a.mu.Lock()
		delete(a.runs[sessionID], id)
		if len(a.runs[sessionID]) == 0 {
			delete(a.runs, sessionID)
		}
		a.mu.Unlock()
		close(r.done)
	}
}

// cancel cancels the session's batches ("" for all) for cause, which
// their calls' results give as the reason, and waits for them.
func (a *activeCalls) cancel(ctx context.Context, sessionID string, cause error) error {
	a.mu.Lock()
	var runs []*activeRun
	for sid, m := range a.runs {
		if sessionID != "" && sid != sessionID {
			continue
		}
		for _, r := range m {
			runs = append(runs, r)
		}
	}
	a.mu.Unlock()
	for _, r := range runs {
		r.cancel(cause)
	}
	for _, r := range runs {
		select {
		case <-r.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
