package exec

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
)

// fakeTool is configured per test: its schema takes {"text": string,
// "n": integer, "flag": boolean}, and run decides what a call does.
type fakeTool struct {
	name       string
	safe       bool
	repeatable bool
	run        func(ctx context.Context, in fakeInput, env *tool.Env) (*tool.Result, error)
}

type fakeInput struct {
	Text string `json:"text"`
	N    int    `json:"n"`
	Flag bool   `json:"flag"`
}

func (f *fakeTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        f.name,
		Description: "test tool",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["text"],
			"properties":{"text":{"type":"string"},"n":{"type":"integer","maximum":100},"flag":{"type":"boolean"}}}`),
	}
}

func (f *fakeTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in fakeInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if in.Text == "reject" {
		return nil, tool.InvalidInputf("text must not be reject")
	}
	return &fakeInv{t: f, in: in}, nil
}

type fakeInv struct {
	t  *fakeTool
	in fakeInput
}

func (i *fakeInv) Traits() tool.Traits {
	return tool.Traits{ReadOnly: i.t.safe, ConcurrencySafe: i.t.safe, Repeatable: i.t.repeatable}
}
func (i *fakeInv) Activity() tool.Activity { return tool.Activity{Summary: i.t.name + " " + i.in.Text} }
func (i *fakeInv) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	if i.t.run != nil {
		return i.t.run(ctx, i.in, env)
	}
	return tool.Text(i.in.Text), nil
}

// recSink records events in arrival order.
type recSink struct {
	mu     sync.Mutex
	events []Event
}

func (s *recSink) Emit(ev Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, ev)
	return nil
}

func (s *recSink) of(id string) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Event
	for _, ev := range s.events {
		if ev.ToolUseID == id {
			out = append(out, ev)
		}
	}
	return out
}

func (s *recSink) results() map[string]*tool.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]*tool.Result{}
	for _, ev := range s.events {
		if ev.Result != nil {
			out[ev.ToolUseID] = ev.Result.Result
		}
	}
	return out
}

func (s *recSink) kinds(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, ev := range s.events {
		if ev.ToolUseID != id {
			continue
		}
		switch {
		case ev.Started != nil:
			out = append(out, "started")
		case ev.Progress != nil:
			out = append(out, "progress")
		case ev.Result != nil:
			out = append(out, "result")
		}
	}
	return out
}

type denyAll struct{}

func (denyAll) Decide(context.Context, policy.Request) (policy.Decision, error) {
	return policy.Decision{Behavior: policy.Deny, Reason: "no", Rule: "Fake", Source: "test"}, nil
}

type harness struct {
	engine *Engine
	store  store.Store
	id     string
	dir    string
}

func newHarness(t *testing.T, dec policy.Decider, tools ...tool.Tool) *harness {
	t.Helper()
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	if dec == nil {
		dec = policy.WorkspaceOnly{}
	}
	e, err := NewEngine(Config{Registry: reg, Store: st, Policy: dec, MaxConcurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	if err := st.CreateSession(context.Background(), &store.Session{ID: "s1", Workspace: dir, Cwd: dir, Mode: "default"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Shutdown(context.Background()) })
	return &harness{engine: e, store: st, id: "s1", dir: dir}
}

func (h *harness) exec(t *testing.T, reqs ...Request) *recSink {
	t.Helper()
	sink := &recSink{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.engine.Execute(ctx, h.id, reqs, sink); err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return sink
}

func call(id, name string, in map[string]any) Request {
	return Request{ToolUseID: id, Name: name, Input: in}
}

// gauge tracks how many calls run at once and the peak.
type gauge struct{ cur, peak atomic.Int32 }

func (g *gauge) enter() {
	n := g.cur.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			return
		}
	}
}
func (g *gauge) leave() { g.cur.Add(-1) }
