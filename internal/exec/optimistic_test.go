package exec

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// countingStore counts the journal steps a batch takes.
type countingStore struct {
	store.Store
	begins, commits atomic.Int32
}

func (c *countingStore) BeginCalls(ctx context.Context, sid, owner string, cl []store.Claim, t store.CallTimes) (*store.Session, []store.ClaimResult, error) {
	c.begins.Add(1)
	return c.Store.BeginCalls(ctx, sid, owner, cl, t)
}

func (c *countingStore) CommitCall(ctx context.Context, ref store.CallRef, fp, etag string, evs []store.CallEvent, fx store.Effects, t store.CallTimes) (store.CommitResult, error) {
	c.commits.Add(1)
	return c.Store.CommitCall(ctx, ref, fp, etag, evs, fx, t)
}

// modeDecider allows everything in bypassPermissions mode, asks in
// default mode and denies otherwise, so a test can change decisions by
// changing the session.
type modeDecider struct{}

func (modeDecider) Decide(_ context.Context, r policy.Request) (policy.Decision, error) {
	switch r.Mode {
	case "bypassPermissions":
		return policy.Decision{Behavior: policy.Allow, Source: "mode"}, nil
	case "default":
		return policy.Decision{Behavior: policy.Ask, Reason: "asks", Source: "mode"}, nil
	}
	return policy.Decision{Behavior: policy.Deny, Reason: "mode " + r.Mode, Source: "mode"}, nil
}

func repeatableHarness(t *testing.T, runs *atomic.Int32) (*harness, *countingStore) {
	h := newHarness(t, modeDecider{}, &fakeTool{name: "Look", safe: true, repeatable: true,
		run: func(ctx context.Context, in fakeInput, env *tool.Env) (*tool.Result, error) {
			runs.Add(1)
			return tool.Text("saw " + in.Text), env.State.RecordRead(ctx, "/seen", tool.FileStamp{Size: int64(len(in.Text))})
		}})
	cs := &countingStore{Store: h.store}
	h.engine.cfg.Store = cs
	if _, err := h.store.UpdateSession(context.Background(), h.id, func(s *store.Session) error {
		s.Mode = "bypassPermissions"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return h, cs
}

func TestRepeatableCallsTakeOneStoreStepOnceTheSessionIsKnown(t *testing.T) {
	var runs atomic.Int32
	h, cs := repeatableHarness(t, &runs)
	h.exec(t, call("1", "Look", map[string]any{"text": "a"}))
	if cs.begins.Load() != 1 || cs.commits.Load() != 0 {
		t.Fatalf("first batch: %d begins, %d commits; want the claimed way (1, 0)", cs.begins.Load(), cs.commits.Load())
	}
	sink := h.exec(t, call("2", "Look", map[string]any{"text": "bb"}), call("3", "Look", map[string]any{"text": "c"}))
	if cs.begins.Load() != 1 || cs.commits.Load() != 2 {
		t.Fatalf("second batch: %d begins, %d commits; want 1 and 2", cs.begins.Load(), cs.commits.Load())
	}
	evs := sink.of("2")
	if len(evs) != 3 || evs[0].Decision == nil || evs[1].Started == nil || evs[2].Result == nil || evs[2].Seq != 3 {
		t.Fatalf("events of an unclaimed call: %+v", evs)
	}
	if st, ok, _ := h.store.ReadStamp(context.Background(), h.id, "/seen"); !ok || st.Size == 0 {
		t.Fatal("the unclaimed call's effects were not recorded")
	}
	// A retry gets the recorded run. (A repeatable call may run again on
	// the way, with no effect: what it produced is thrown away.)
	again := h.exec(t, call("2", "Look", map[string]any{"text": "bb"}))
	if evs := again.of("2"); len(evs) != 3 || !evs[0].Replayed || !evs[2].Replayed || evs[2].Result.Result.Content[0].Text != "saw bb" {
		t.Fatalf("retry of an unclaimed call: events %+v", evs)
	}
}

func TestUnclaimedCallOnAChangedSessionRunsAgainOnTheNewOne(t *testing.T) {
	var runs atomic.Int32
	h, _ := repeatableHarness(t, &runs)
	h.exec(t, call("1", "Look", map[string]any{"text": "a"})) // caches the session
	// Another replica changes the mode: this replica's copy is stale.
	if _, err := h.store.UpdateSession(context.Background(), h.id, func(s *store.Session) error {
		s.Mode = "plan"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sink := h.exec(t, call("2", "Look", map[string]any{"text": "b"}))
	evs := sink.of("2")
	if len(evs) != 2 || evs[0].Decision == nil || evs[0].Decision.Behavior != policy.Deny || evs[1].Result == nil || evs[1].Seq != 2 {
		t.Fatalf("the client must see one run, decided on the new session: %+v", evs)
	}
	if r := evs[1].Result.Result; r.Kind != tool.KindPermissionDenied {
		t.Fatalf("result %+v, want denied by the new mode", r)
	}
}

func TestUnclaimedCallThatAsksIsAskedClaimed(t *testing.T) {
	var runs atomic.Int32
	h, cs := repeatableHarness(t, &runs)
	h.exec(t, call("1", "Look", map[string]any{"text": "a"}))
	// Change the mode and put the new session in the engine's cache: the
	// ask, not staleness, must send the call the claimed way.
	if _, err := h.store.UpdateSession(context.Background(), h.id, func(s *store.Session) error { s.Mode = "default"; return nil }); err != nil {
		t.Fatal(err)
	}
	sess, _ := h.store.GetSession(context.Background(), h.id)
	h.engine.sessions.put(sess)
	begins := cs.begins.Load()
	sink := &askSink{engine: h.engine, sid: h.id}
	if err := h.engine.Execute(context.Background(), h.id, []Request{call("2", "Look", map[string]any{"text": "b"})}, sink); err != nil {
		t.Fatal(err)
	}
	if cs.begins.Load() != begins+1 {
		t.Fatal("the asking call did not go the claimed way")
	}
	if !sink.asked.Load() || sink.result == nil || sink.result.IsError {
		t.Fatalf("asked %v, result %+v", sink.asked.Load(), sink.result)
	}
}

// askSink answers every permission request with allow.
type askSink struct {
	engine *Engine
	sid    string
	asked  atomic.Bool
	result *tool.Result
}

func (a *askSink) Emit(ev Event) error {
	if ev.PermissionRequest != nil {
		a.asked.Store(true)
		go a.engine.Resolve(context.Background(), a.sid, ev.PermissionRequest.ID, Answer{Allow: true})
	}
	if ev.Result != nil {
		a.result = ev.Result.Result
	}
	return nil
}

// parseCounter counts how often its calls are parsed.
type parseCounter struct {
	fakeTool
	parses atomic.Int32
}

func (p *parseCounter) Parse(raw json.RawMessage) (tool.Invocation, error) {
	p.parses.Add(1)
	return p.fakeTool.Parse(raw)
}

func TestAWarmSessionsCallIsPreparedOnce(t *testing.T) {
	write := &parseCounter{fakeTool: fakeTool{name: "Write"}}
	read := &parseCounter{fakeTool: fakeTool{name: "Read", safe: true, repeatable: true}}
	h := newHarness(t, nil, write, read)
	h.exec(t, call("t0", "Read", map[string]any{"text": "warm"})) // caches the session
	read.parses.Store(0)
	sink := h.exec(t, call("t1", "Read", map[string]any{"text": "a"}), call("t2", "Write", map[string]any{"text": "b"}))
	if got := sink.results(); len(got) != 2 || got["t1"].IsError || got["t2"].IsError {
		t.Fatalf("results %+v", got)
	}
	if r, w := read.parses.Load(), write.parses.Load(); r != 1 || w != 1 {
		t.Fatalf("parsed the Read %d times and the Write %d times, want once each", r, w)
	}
	// A session that changed in between is prepared again on the new one.
	if _, err := h.store.UpdateSession(context.Background(), h.id, func(s *store.Session) error { s.Mode = "acceptEdits"; return nil }); err != nil {
		t.Fatal(err)
	}
	h.exec(t, call("t3", "Read", map[string]any{"text": "c"}))
	write.parses.Store(0)
	sink = h.exec(t, call("t4", "Write", map[string]any{"text": "d"}))
	if got := sink.results(); got["t4"] == nil || got["t4"].IsError {
		t.Fatalf("results %+v", got)
	}
	if w := write.parses.Load(); w != 1 {
		t.Fatalf("parsed the Write %d times, want once", w)
	}
}
