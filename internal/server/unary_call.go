package server

import (
	"context"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/ratelimit"
	"github.com/toold/toold/internal/session"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Call is the unary form of Execute: the same engine path, every call's
// events in one response. A call that would wait for an answer stops the
// batch with FAILED_PRECONDITION (exec.NeedsStreamError).
func (s *ToolService) Call(ctx context.Context, req *tooldv1.CallRequest) (*tooldv1.CallResponse, error) {
	if n := len(req.GetCalls()); n > s.maxCalls {
		return nil, status.Errorf(codes.InvalidArgument, "calls: %d calls in one request, at most %d allowed", n, s.maxCalls)
	}
	if err := session.CheckID(req.GetSessionId()); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	if err := s.checkInputLimits(req.GetCalls()); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	reqs := make([]exec.Request, len(req.GetCalls()))
	for i, c := range req.GetCalls() {
		reqs[i] = callFromProto(c)
	}
	sink := newCollectSink(reqs, ratelimit.PermitFrom(ctx))
	if err := s.engine.Execute(ctx, req.GetSessionId(), reqs, sink); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	return &tooldv1.CallResponse{Events: sink.events()}, nil
}

// collectSink keeps a unary Call's events, by call, for its one response.
// Progress is dropped (the result carries the output), so what it holds
// is bounded by the calls' results.
type collectSink struct {
	mu     sync.Mutex
	byCall map[string][]*tooldv1.ExecuteEvent
	order  []string
	permit *ratelimit.Permit
}

func newCollectSink(reqs []exec.Request, permit *ratelimit.Permit) *collectSink {
	s := &collectSink{byCall: make(map[string][]*tooldv1.ExecuteEvent, len(reqs)), order: make([]string, len(reqs)), permit: permit}
	for i, r := range reqs {
		s.order[i] = r.ToolUseID
	}
	return s
}

// Streamless tells the engine that nobody can answer on this request.
func (s *collectSink) Streamless() {}

func (s *collectSink) Emit(ev exec.Event) error {
	if ev.Progress != nil {
		return nil
	}
	if ev.Result != nil {
		s.permit.Done()
	}
	msg := eventToProto(ev)
	s.mu.Lock()
	s.byCall[ev.ToolUseID] = append(s.byCall[ev.ToolUseID], msg)
	s.mu.Unlock()
	return nil
}

// events are the calls' events in request order.
func (s *collectSink) events() []*tooldv1.ExecuteEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, evs := range s.byCall {
		n += len(evs)
	}
	out := make([]*tooldv1.ExecuteEvent, 0, n)
	for _, id := range s.order {
		out = append(out, s.byCall[id]...)
	}
	return out
}
