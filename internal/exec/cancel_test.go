package exec

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// blockTool runs until its context ends, counting its runs.
func blockTool(name string, runs *atomic.Int32, started chan<- string) *fakeTool {
	return &fakeTool{name: name, run: func(ctx context.Context, in fakeInput, _ *tool.Env) (*tool.Result, error) {
		runs.Add(1)
		if started != nil {
			started <- in.Text
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
}

func wantCancelled(t *testing.T, sink *recSink, id string) {
	t.Helper()
	res := sink.results()[id]
	if res == nil || res.Kind != tool.KindCancelled || res.Content[0].Text != "The call was cancelled before it finished." {
		t.Fatalf("%s: result %+v, want the plain cancelled result", id, res)
	}
}

func cancelStates(t *testing.T, e *Engine, sid string, ids ...string) []CancelState {
	t.Helper()
	st, err := e.Cancel(context.Background(), sid, ids)
	if err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	return st
}

// A detached-style call (its context never ends) stops when Cancel names
// it; the other calls of the batch go on; the cancelled result is
// journaled, so a retry replays it instead of running the call again, and a
// second Cancel finds it finished.
func TestCancelRunningCall(t *testing.T) {
	var runs atomic.Int32
	started := make(chan string, 1)
	h := newHarness(t, nil, blockTool("Block", &runs, started), &fakeTool{name: "Echo"})
	done := make(chan *recSink, 1)
	go func() {
		done <- h.exec(t, call("a", "Block", map[string]any{"text": "x"}), call("b", "Echo", map[string]any{"text": "y"}))
	}()
	<-started
	if got := cancelStates(t, h.engine, h.id, "a"); got[0] != CancelRequested {
		t.Fatalf("state %v, want CancelRequested", got[0])
	}
	sink := <-done
	wantCancelled(t, sink, "a")
	if res := sink.results()["b"]; res == nil || res.IsError {
		t.Fatalf("b: %+v, want its own result", res)
	}
	if got := cancelStates(t, h.engine, h.id, "a", "b"); got[0] != CancelFinished || got[1] != CancelFinished {
		t.Fatalf("states after the results: %v, want both finished", got)
	}
	again := h.exec(t, call("a", "Block", map[string]any{"text": "x"}))
	wantCancelled(t, again, "a")
	if evs := again.of("a"); !evs[len(evs)-1].Replayed {
		t.Error("the retry ran the call instead of replaying its result")
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the call ran %d times, want 1", n)
	}
}

// A call of the batch that has not started (it waits for the one before)
// ends cancelled without running, and stays cancelled for a retry.
func TestCancelQueuedCall(t *testing.T) {
	var runs, later atomic.Int32
	started := make(chan string, 2)
	h := newHarness(t, nil, blockTool("Block", &runs, started), &fakeTool{name: "Later", run: func(context.Context, fakeInput, *tool.Env) (*tool.Result, error) {
		later.Add(1)
		return tool.Text("ran"), nil
	}})
	done := make(chan *recSink, 1)
	go func() {
		done <- h.exec(t, call("a", "Block", map[string]any{"text": "x"}), call("b", "Later", map[string]any{"text": "y"}))
	}()
	<-started
	if got := cancelStates(t, h.engine, h.id, "b"); got[0] != CancelRequested {
		t.Fatalf("state %v, want CancelRequested", got[0])
	}
	cancelStates(t, h.engine, h.id, "a")
	sink := <-done
	wantCancelled(t, sink, "a")
	wantCancelled(t, sink, "b")
	if got := sink.kinds("b"); len(got) != 1 {
		t.Errorf("b's events %v, want its result only", got)
	}
	again := h.exec(t, call("b", "Later", map[string]any{"text": "y"}))
	wantCancelled(t, again, "b")
	if n := later.Load(); n != 0 {
		t.Errorf("the queued call ran %d times, want 0", n)
	}
}

// A cancel that comes before its call is remembered: the call, when it
// arrives, ends cancelled without running.
func TestCancelBeforeTheCallArrives(t *testing.T) {
	var runs atomic.Int32
	h := newHarness(t, nil, blockTool("Block", &runs, nil))
	if got := cancelStates(t, h.engine, h.id, "early"); got[0] != CancelNotStarted {
		t.Fatalf("state %v, want CancelNotStarted", got[0])
	}
	sink := h.exec(t, call("early", "Block", map[string]any{"text": "x"}))
	wantCancelled(t, sink, "early")
	if n := runs.Load(); n != 0 {
		t.Errorf("the call ran %d times, want 0", n)
	}
}

// A read-only call runs before it is recorded; Cancel reaches it too, and
// its cancelled result is recorded.
func TestCancelUnclaimedCall(t *testing.T) {
	var runs atomic.Int32
	started := make(chan string, 1)
	ro := blockTool("Look", &runs, started)
	ro.safe, ro.repeatable = true, true
	h := newHarness(t, nil, ro, &fakeTool{name: "Echo", safe: true, repeatable: true})
	// The first batch puts the session in the engine's cache, so that the
	// next read-only batch runs unclaimed.
	h.exec(t, call("warm", "Echo", map[string]any{"text": "x"}))
	done := make(chan *recSink, 1)
	go func() { done <- h.exec(t, call("r", "Look", map[string]any{"text": "x"})) }()
	<-started
	if _, st, _, _ := h.store.ReadEvents(context.Background(), store.CallRef{SessionID: h.id, ToolUseID: "r"}, 0, 0); st != store.CallAbsent {
		t.Fatalf("the call is %v in the journal; the test wants an unclaimed run", st)
	}
	if got := cancelStates(t, h.engine, h.id, "r"); got[0] != CancelRequested {
		t.Fatalf("state %v, want CancelRequested", got[0])
	}
	wantCancelled(t, <-done, "r")
	if got := cancelStates(t, h.engine, h.id, "r"); got[0] != CancelFinished {
		t.Fatalf("state after the result %v, want CancelFinished", got[0])
	}
}

func TestCancelUnknownSession(t *testing.T) {
	h := newHarness(t, nil, &fakeTool{name: "Echo"})
	if _, err := h.engine.Cancel(context.Background(), "nope", []string{"a"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err %v, want ErrNotFound", err)
	}
}

// fanout is a CancelBus that reaches every engine, as Redis' does.
type fanout struct{ engines []*Engine }

func (f *fanout) Publish(_ context.Context, ref store.CallRef) error {
	for _, e := range f.engines {
		e.CancelLocal(ref)
	}
	return nil
}

// Two replicas on one store: Cancel through the one that does not run the
// call stops it on the other.
func TestCancelReachesAnotherReplica(t *testing.T) {
	var runs atomic.Int32
	started := make(chan string, 1)
	h := newHarness(t, nil, blockTool("Block", &runs, started))
	bus := &fanout{}
	other, err := NewEngine(Config{Registry: h.engine.cfg.Registry, Store: h.store, Policy: h.engine.cfg.Policy, Cancels: bus})
	if err != nil {
		t.Fatal(err)
	}
	h.engine.cfg.Cancels = bus
	bus.engines = []*Engine{h.engine, other}
	done := make(chan *recSink, 1)
	go func() { done <- h.exec(t, call("a", "Block", map[string]any{"text": "x"})) }()
	<-started
	if got := cancelStates(t, other, h.id, "a"); got[0] != CancelRequested {
		t.Fatalf("state %v, want CancelRequested", got[0])
	}
	select {
	case sink := <-done:
		wantCancelled(t, sink, "a")
	case <-time.After(20 * time.Second):
		t.Fatal("the call was not cancelled on its replica")
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the call ran %d times, want 1", n)
	}
}

// TestCallCancelsRuns: each run of a call is cancelled while it is
// tracked, whichever of them stops first, and the registry forgets a call
// once none of its runs is left.
func TestCallCancelsRuns(t *testing.T) {
	ref := store.CallRef{SessionID: "s", ToolUseID: "toolu_1"}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 0, 2}} {
		r := newCallCancels()
		ctxs := make([]context.Context, 3)
		stops := make([]func(), 3)
		for i := range ctxs {
			ctxs[i], stops[i] = r.track(context.Background(), ref)
		}
		stops[order[0]]()
		if !r.cancel(ref) {
			t.Fatalf("%v: two runs left, none found", order)
		}
		for i, ctx := range ctxs {
			if i == order[0] {
				if cancelRequested(ctx) {
					t.Errorf("%v: run %d stopped before the cancel, yet cancelled by request", order, i)
				}
				continue
			}
			if !cancelRequested(ctx) {
				t.Errorf("%v: run %d not cancelled", order, i)
			}
		}
		stops[order[1]]()
		stops[order[2]]()
		if len(r.live) != 0 {
			t.Errorf("%v: %d calls still tracked", order, len(r.live))
		}
	}
}
