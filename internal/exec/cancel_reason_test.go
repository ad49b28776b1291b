package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
)

// A call the engine stops says why in its result: shutdown or the end of
// its session; one the client cancelled has no reason to give. The calls
// of the batch that had not started yet say the same.
func TestCancelledResultSaysWhy(t *testing.T) {
	tests := []struct {
		name   string
		cancel func(h *harness, client context.CancelFunc) error
		want   string
	}{
		{"shutdown", func(h *harness, _ context.CancelFunc) error { return h.engine.Shutdown(context.Background()) },
			"The call was cancelled before it finished: toold is shutting down."},
		{"session deleted", func(h *harness, _ context.CancelFunc) error {
			return h.engine.CancelSession(context.Background(), h.id)
		},
			"The call was cancelled before it finished: its session was deleted."},
		{"client cancel", func(_ *harness, client context.CancelFunc) error { client(); return nil },
			"The call was cancelled before it finished."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			block := &fakeTool{name: "Block", run: func(ctx context.Context, _ fakeInput, _ *tool.Env) (*tool.Result, error) {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			}}
			h := newHarness(t, nil, block, &fakeTool{name: "Echo"})
			ctx, client := context.WithCancel(context.Background())
			defer client()
			sink := &recSink{}
			done := make(chan error, 1)
			go func() {
				done <- h.engine.Execute(ctx, h.id, []Request{call("a", "Block", map[string]any{"text": "x"}), call("b", "Echo", map[string]any{"text": "y"})}, sink)
			}()
			<-started
			if err := tc.cancel(h, client); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			for id, res := range sink.results() {
				if text := res.Content[0].Text; res.Kind != tool.KindCancelled || text != tc.want {
					t.Errorf("%s: kind %v, text %q, want %q", id, res.Kind, text, tc.want)
				}
			}
			if n := len(sink.results()); n != 2 {
				t.Errorf("%d results, want 2", n)
			}
		})
	}
}

func TestCancelReasonKeepsOtherErrors(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrShuttingDown)
	for _, err := range []error{nil, context.DeadlineExceeded, tool.Failf("x")} {
		if got := cancelReason(ctx, err); got != err {
			t.Errorf("cancelReason(%v) = %v", err, got)
		}
	}
	if strings.Contains(ResultFromError(cancelReason(ctx, context.Canceled)).Content[0].Text, "shutting down") == false {
		t.Error("the shutdown reason is lost")
	}
}
