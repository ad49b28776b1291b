package server

import (
	"context"
	"sync"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/ratelimit"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// streamSink serialises sends: grpc-go streams allow one sender at a time,
// and concurrent calls emit from several goroutines. After a failed send
// (the client left) it drops events; a detached batch goes on regardless.
type streamSink struct {
	mu     sync.Mutex
	stream interface {
		Send(*tooldv1.ExecuteEvent) error
	}
	err error
	// permit holds the tenant's concurrency slots of the batch (nil
	// without rate limits); each call's result gives its slot back.
	permit *ratelimit.Permit
	// open counts the calls of the stream still without a result; last
	// is when something was last sent. Both are for keepAlive.
	open int
	last time.Time
	// ticker fires keepAlive's checks until stopped.
	ticker  *time.Timer
	stopped bool
}

func newStreamSink(stream interface {
	Send(*tooldv1.ExecuteEvent) error
}, permit *ratelimit.Permit, calls int) *streamSink {
	return &streamSink{stream: stream, permit: permit, open: calls, last: time.Now()}
}

func (s *streamSink) Emit(ev exec.Event) error {
	if ev.Result != nil {
		s.permit.Done()
	}
	msg := eventToProto(ev)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.Result != nil {
		s.open--
	}
	if s.err != nil {
		return s.err
	}
	s.err = s.stream.Send(msg)
	s.last = time.Now()
	return s.err
}

// keepAlive sends a Keepalive event whenever nothing was sent for every,
// until ctx ends, a send fails, every call has its result, or the returned
// stop is called. A proxy that cuts streams idle for too long then keeps
// a silent call's stream. every <= 0 sends none. The result and the check
// that calls are open share the lock, so no keepalive follows the last
// result; nor does one follow stop, which takes the lock too.
//
// It is a timer, not a goroutine waiting on one: every Execute has it,
// and most end long before it fires.
func (s *streamSink) keepAlive(ctx context.Context, every time.Duration) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ticker = time.AfterFunc(every, func() {
		if ctx.Err() != nil {
			return
		}
		next, ok := s.keepaliveDue(every)
		s.mu.Lock()
		if ok && !s.stopped {
			s.ticker.Reset(next)
		}
		s.mu.Unlock()
	})
	return func() {
		s.mu.Lock()
		s.stopped = true
		s.ticker.Stop()
		s.mu.Unlock()
	}
}

var keepaliveEvent = &tooldv1.ExecuteEvent{Event: &tooldv1.ExecuteEvent_Keepalive{Keepalive: &tooldv1.Keepalive{}}}

// keepaliveDue sends a keepalive when the stream has been idle for every
// and says when to look again; false when no more are due.
func (s *streamSink) keepaliveDue(every time.Duration) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.open <= 0 || s.stopped {
		return 0, false
	}
	if idle := time.Since(s.last); idle < every {
		return every - idle, true
	}
	s.err = s.stream.Send(keepaliveEvent)
	s.last = time.Now()
	return every, s.err == nil
}
