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

// counting returns a tool that counts its runs and, when gate is not nil,
// waits for it before finishing.
func counting(name string, runs *atomic.Int32, gate chan struct{}) *fakeTool {
	return &fakeTool{name: name, run: func(ctx context.Context, in fakeInput, env *tool.Env) (*tool.Result, error) {
		runs.Add(1)
		env.Progress.Message("working on " + in.Text)
		if gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return tool.Text("did " + in.Text), nil
	}}
}

func TestRetryOfAFinishedCallReplaysItWithoutRunning(t *testing.T) {
	var runs atomic.Int32
	h := newHarness(t, nil, counting("Push", &runs, nil))
	first := h.exec(t, call("toolu_1", "Push", map[string]any{"text": "origin"}))
	second := h.exec(t, call("toolu_1", "Push", map[string]any{"text": "origin"}))
	if n := runs.Load(); n != 1 {
		t.Fatalf("the tool ran %d times for one tool_use_id, want 1", n)
	}
	a, b := first.of("toolu_1"), second.of("toolu_1")
	if len(a) != len(b) || len(a) < 4 {
		t.Fatalf("first run had %d events, the retry %d; want the same, at least decision/started/progress/result", len(a), len(b))
	}
	for i := range a {
		if a[i].Seq != int64(i+1) || b[i].Seq != a[i].Seq {
			t.Fatalf("event %d: seq %d then %d, want %d", i, a[i].Seq, b[i].Seq, i+1)
		}
		if a[i].Replayed || !b[i].Replayed {
			t.Fatalf("event %d: replayed %v then %v", i, a[i].Replayed, b[i].Replayed)
		}
	}
	if got := second.results()["toolu_1"]; got == nil || got.Content[0].Text != "did origin" {
		t.Fatalf("replayed result %+v", got)
	}
}

func TestRetryWhileRunningFollowsTheRun(t *testing.T) {
	var runs atomic.Int32
	gate := make(chan struct{})
	h := newHarness(t, nil, counting("Push", &runs, gate))
	req := call("toolu_1", "Push", map[string]any{"text": "x"})
	firstDone := make(chan *recSink)
	go func() { firstDone <- h.exec(t, req) }()
	waitUntil(t, func() bool { return runs.Load() == 1 })

	retry := &recSink{}
	retryDone := make(chan error, 1)
	go func() { retryDone <- h.engine.Execute(context.Background(), h.id, []Request{req}, retry) }()
	// The follower sees the stored progress before the call ends.
	waitUntil(t, func() bool { return len(retry.of("toolu_1")) > 0 })
	close(gate)
	first := <-firstDone
	if err := <-retryDone; err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("ran %d times, want 1", n)
	}
	if r := retry.results()["toolu_1"]; r == nil || r.Content[0].Text != "did x" {
		t.Fatalf("the follower's result: %+v", r)
	}
	if len(retry.of("toolu_1")) != len(first.of("toolu_1")) {
		t.Fatalf("follower got %d events, the runner %d", len(retry.of("toolu_1")), len(first.of("toolu_1")))
	}
}

func TestReusedToolUseIDForAnotherCallIsRefused(t *testing.T) {
	var runs atomic.Int32
	h := newHarness(t, nil, counting("Push", &runs, nil))
	h.exec(t, call("toolu_1", "Push", map[string]any{"text": "a"}))
	err := h.engine.Execute(context.Background(), h.id, []Request{
		call("toolu_2", "Push", map[string]any{"text": "b"}),
		call("toolu_1", "Push", map[string]any{"text": "other"}),
	}, &recSink{})
	if !errors.Is(err, store.ErrCallConflict) {
		t.Fatalf("err = %v, want ErrCallConflict", err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("a refused batch ran something: %d runs", n)
	}
	// toolu_2 was not claimed by the refused batch.
	h.exec(t, call("toolu_2", "Push", map[string]any{"text": "b"}))
	if n := runs.Load(); n != 2 {
		t.Fatalf("runs = %d, want 2", n)
	}
}

func TestCallCancelledBeforeItStartedRunsOnRetry(t *testing.T) {
	var runs atomic.Int32
	gate := make(chan struct{})
	h := newHarness(t, nil, counting("Push", &runs, gate))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.engine.Execute(ctx, h.id, []Request{
			call("toolu_1", "Push", map[string]any{"text": "a"}),
			call("toolu_2", "Push", map[string]any{"text": "b"}),
		}, &recSink{})
	}()
	waitUntil(t, func() bool { return runs.Load() == 1 })
	cancel()
	<-done
	close(gate)
	retry := h.exec(t,
		call("toolu_1", "Push", map[string]any{"text": "a"}),
		call("toolu_2", "Push", map[string]any{"text": "b"}))
	if n := runs.Load(); n != 2 {
		t.Fatalf("runs = %d, want 2: the started call not again, the unstarted one once", n)
	}
	if r := retry.results()["toolu_1"]; r.Kind != tool.KindCancelled {
		t.Fatalf("the started and cancelled call: %+v, want its stored cancellation", r)
	}
	if r := retry.results()["toolu_2"]; r.IsError || r.Content[0].Text != "did b" {
		t.Fatalf("the unstarted call on retry: %+v", r)
	}
}

func TestAttachResumesAfterASequenceNumber(t *testing.T) {
	var runs atomic.Int32
	h := newHarness(t, nil, counting("Push", &runs, nil))
	all := h.exec(t, call("toolu_1", "Push", map[string]any{"text": "a"})).of("toolu_1")
	sink := &recSink{}
	if err := h.engine.Attach(context.Background(), h.id, "toolu_1", 2, sink); err != nil {
		t.Fatal(err)
	}
	got := sink.of("toolu_1")
	if len(got) != len(all)-2 || got[0].Seq != 3 || got[len(got)-1].Result == nil {
		t.Fatalf("attach after 2: %d events from seq %d; the call had %d", len(got), got[0].Seq, len(all))
	}
	err := h.engine.Attach(context.Background(), h.id, "toolu_none", 0, &recSink{})
	if !errors.Is(err, ErrNoSuchCall) {
		t.Fatalf("attach to an unknown call: %v", err)
	}
}

func TestCallOfADeadReplicaIsReportedUnknownNotRunAgain(t *testing.T) {
	var runs atomic.Int32
	h := newHarness(t, nil, counting("Push", &runs, nil))
	req := call("toolu_1", "Push", map[string]any{"text": "a"})
	// Another replica claimed the call and died: its lease lapses.
	_, _, err := h.store.BeginCalls(context.Background(), h.id, "dead:1",
		[]store.Claim{{ToolUseID: "toolu_1", Fingerprint: fingerprint(req)}},
		store.CallTimes{Lease: 20 * time.Millisecond, Keep: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	r := h.exec(t, req).results()["toolu_1"]
	if runs.Load() != 0 {
		t.Fatal("a call that may have run on a dead replica ran again")
	}
	if r == nil || r.Kind != tool.KindInternal {
		t.Fatalf("result %+v, want an internal error saying the outcome is unknown", r)
	}
}

func TestEffectsAreStoredWithTheResult(t *testing.T) {
	stamp := tool.FileStamp{ModTime: time.Unix(1700000000, 0).UTC(), Size: 7}
	var seen atomic.Bool
	h := newHarness(t, nil,
		&fakeTool{name: "Reader", run: func(ctx context.Context, in fakeInput, env *tool.Env) (*tool.Result, error) {
			if err := env.State.RecordRead(ctx, "/f", stamp); err != nil {
				return nil, err
			}
			// The call sees its own record before it is stored.
			if _, ok, _ := env.State.ReadStamp(ctx, "/f"); !ok {
				t.Error("a call does not see the stamp it recorded")
			}
			return tool.Text("read"), nil
		}},
		&fakeTool{name: "Mover", run: func(ctx context.Context, in fakeInput, env *tool.Env) (*tool.Result, error) {
			return tool.Text("moved"), env.State.SetCwd(ctx, in.Text)
		}},
		&fakeTool{name: "Where", run: func(ctx context.Context, in fakeInput, env *tool.Env) (*tool.Result, error) {
			st, ok, err := env.State.ReadStamp(ctx, "/f")
			seen.Store(ok && err == nil && st.Size == 7)
			return tool.Text(env.Cwd), nil
		}},
	)
	sub := h.dir + "/sub"
	res := h.exec(t,
		call("1", "Reader", map[string]any{"text": "x"}),
		call("2", "Mover", map[string]any{"text": sub}),
		call("3", "Where", map[string]any{"text": "x"}),
	).results()
	if !seen.Load() {
		t.Fatal("a later call did not see the stamp an earlier call stored")
	}
	if got := res["3"].Content[0].Text; got != sub {
		t.Fatalf("cwd of the next call = %q, want %q", got, sub)
	}
	sess, _ := h.store.GetSession(context.Background(), h.id)
	if sess.Cwd != sub {
		t.Fatalf("stored cwd = %q", sess.Cwd)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
