package server

import (
	"testing"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

type sentEvents struct{ evs []*tooldv1.ExecuteEvent }

func (s *sentEvents) Send(ev *tooldv1.ExecuteEvent) error {
	s.evs = append(s.evs, ev)
	return nil
}

// A keepalive is due only on a stream idle for the interval, and never
// once every call of the stream has its result.
func TestKeepaliveDue(t *testing.T) {
	const every = time.Hour
	sent := &sentEvents{}
	s := newStreamSink(sent, nil, 2)
	if next, ok := s.keepaliveDue(every); !ok || next <= 0 || len(sent.evs) != 0 {
		t.Fatalf("fresh stream: next %v, ok %v, %d sent", next, ok, len(sent.evs))
	}
	s.last = time.Now().Add(-every)
	if _, ok := s.keepaliveDue(every); !ok || len(sent.evs) != 1 || sent.evs[0].GetKeepalive() == nil {
		t.Fatalf("idle stream: ok %v, sent %v", ok, sent.evs)
	}
	result := exec.Event{ToolUseID: "a", Seq: 3, Result: &exec.Outcome{Result: tool.Text("x")}}
	s.Emit(result)
	s.last = time.Now().Add(-every)
	if _, ok := s.keepaliveDue(every); !ok || len(sent.evs) != 3 {
		t.Fatalf("one call still open: ok %v, %d sent", ok, len(sent.evs))
	}
	result.ToolUseID = "b"
	s.Emit(result)
	s.last = time.Now().Add(-every)
	if _, ok := s.keepaliveDue(every); ok || len(sent.evs) != 4 {
		t.Fatalf("after the last result: ok %v, %d sent", ok, len(sent.evs))
	}
}
