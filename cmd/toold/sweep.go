package main

import (
	"context"
	"time"

	"github.com/toold/toold/internal/session"
)

// startSweeper runs the sweep of sessions that ended without a delete
// (session.Manager.Sweep) at start and every interval; 0 turns it off. The
// returned stop waits for a sweep under way, so that the store it uses is
// closed after it.
func startSweeper(ctx context.Context, m *session.Manager, every time.Duration) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.RunSweeper(ctx, every)
	}()
	return func() { cancel(); <-done }
}
