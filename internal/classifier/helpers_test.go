package classifier

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// fakeBackend answers with a fixed response or error and remembers what
// it was asked.
type fakeBackend struct {
	mu   sync.Mutex
	resp *tooldv1.ClassifyResponse
	err  error
	// block waits for the deadline instead of answering.
	block bool
	got   []*tooldv1.ClassifyRequest
}

func (f *fakeBackend) Classify(ctx context.Context, req *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error) {
	f.mu.Lock()
	f.got = append(f.got, req)
	f.mu.Unlock()
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return f.resp, f.err
}
func (f *fakeBackend) Name() string { return "fake" }
func (f *fakeBackend) Close() error { return nil }
func (f *fakeBackend) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.got)
}

func verdict(v tooldv1.ClassifierVerdict, reason string) *fakeBackend {
	return &fakeBackend{resp: &tooldv1.ClassifyResponse{Verdict: v, Reason: reason}}
}

const (
	vAllow = tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_ALLOW
	vDeny  = tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_DENY
	vAsk   = tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_ASK
)

// fixture is a classifier over a memory store holding session s1.
type fixture struct {
	k   *Classifier
	st  store.Store
	now time.Time
}

func newFixture(t testing.TB, b Backend, opts ...func(*Options)) *fixture {
	t.Helper()
	st := memstore.New()
	t.Cleanup(func() { st.Close() })
	if err := st.CreateSession(context.Background(), &store.Session{ID: "s1", Workspace: "/ws/s1", Cwd: "/ws/s1", Mode: "auto"}); err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, now: time.Unix(1_800_000_000, 0)}
	o := Options{Backend: b, Denials: st, Timeout: time.Second, Now: func() time.Time { return f.now }}
	for _, fn := range opts {
		fn(&o)
	}
	k, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	f.k = k
	return f
}

func bashCall(command string) *exec.Call {
	return &exec.Call{
		Request: exec.Request{ToolUseID: "tu1", Name: "Bash"},
		Session: &store.Session{ID: "s1", Workspace: "/ws/s1", Cwd: "/ws/s1", Mode: "auto"},
		Def:     tool.Definition{Name: "Bash", Classifier: tool.ClassifierInput{Fields: []string{"command"}, Cwd: true}},
		Args:    map[string]any{"command": command, "description": "why"},
	}
}

// needsApproval is the ask of a command no rule covers.
var needsApproval = policy.Decision{Behavior: policy.Ask, Reason: "Bash needs approval", Suggestions: []string{"Bash(npm test:*)"}}

var errDead = errors.New("connection refused")
