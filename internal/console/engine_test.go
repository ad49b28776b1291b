package console

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
)

// noteTool answers its call with a fixed text.
type noteTool struct{}

func (noteTool) Definition() tool.Definition {
	return tool.Definition{Name: "Note", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
}
func (noteTool) Parse(json.RawMessage) (tool.Invocation, error) { return noteTool{}, nil }
func (noteTool) Traits() tool.Traits                            { return tool.Traits{} }
func (noteTool) Activity() tool.Activity                        { return tool.Activity{Summary: "note"} }
func (noteTool) Run(context.Context, *tool.Env) (*tool.Result, error) {
	return tool.Text("noted"), nil
}

type dropSink struct{}

func (dropSink) Emit(exec.Event) error { return nil }

// The engine hands the journal its events as values, which the memory
// store keeps undecoded: the recorder reads them all the same.
func TestRecorderReadsTheEnginesEvents(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	const sid = "aaaaaaaaaaaaaaaaaaaaaaaaa3"
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	if err := st.CreateSession(ctx, &store.Session{ID: sid, Workspace: dir, Cwd: dir, Mode: "default"}); err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(st, time.Hour, nil)
	defer r.Close()
	reg, err := tool.NewRegistry(noteTool{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := exec.NewEngine(exec.Config{Registry: reg, Store: r.Tap(st), Policy: policy.WorkspaceOnly{}, OnDecision: r.OnDecision})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Shutdown(ctx)
	if err := eng.Execute(ctx, sid, []exec.Request{{ToolUseID: "toolu_1", Name: "Note", Input: map[string]any{}}}, dropSink{}); err != nil {
		t.Fatal(err)
	}
	r.sync()
	if got := feedKinds(t, st, sid); got != "decision:Note started:Note result:Note" {
		t.Fatalf("feed = %q", got)
	}
}
