package exec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// A background agent: the launch completion gives the launch notice and
// makes the agent a running task; the final report ends it once (a
// second, or one naming another agent or call, is refused and changes
// nothing); the report is in the store for TaskOutput.
func TestBackgroundAgentReport(t *testing.T) {
	h := newDelegHarness(t, time.Minute, "default")
	ctx := context.Background()
	sink, wait := h.start(ctx, t, call("a1", "Agent", map[string]any{"description": "Count files", "prompt": "count", "subagent_type": "Explore"}))
	d := <-sink.delegated
	if err := h.engine.CompleteCall(ctx, "s1", "a1", tool.Completion{Launched: true}); err != nil {
		t.Fatal(err)
	}
	if res := resText(wait().results()["a1"]); !strings.HasPrefix(res, "Async agent launched successfully.") {
		t.Fatalf("launch result %q", res)
	}
	a, err := h.store.GetAgentTask(ctx, "s1", d.ChildSessionID)
	if err != nil {
		t.Fatal(err)
	}
	if a.State != store.AgentRunning || a.ToolUseID != "a1" || a.AgentType != "Explore" || a.Description != "Count files" {
		t.Fatalf("task %+v", a)
	}
	report := tool.Completion{Final: true, AgentID: d.ChildSessionID, Content: []tool.Block{{Type: tool.BlockText, Text: "3 files"}},
		Usage: &tool.AgentUsage{Tokens: 110, ToolUses: 1, DurationMS: 400}}
	for _, bad := range []struct {
		toolUseID string
		comp      tool.Completion
	}{
		{"a2", report},
		{"a1", tool.Completion{Final: true, AgentID: "nosuchagent"}},
		{"a1", tool.Completion{Final: true}},
	} {
		if err := h.engine.CompleteCall(ctx, "s1", bad.toolUseID, bad.comp); !errors.Is(err, ErrNoDelegatedCall) {
			t.Fatalf("report %s/%q: %v, want ErrNoDelegatedCall", bad.toolUseID, bad.comp.AgentID, err)
		}
	}
	if err := h.engine.CompleteCall(ctx, "s1", "a1", report); err != nil {
		t.Fatal(err)
	}
	again := report
	again.Content = []tool.Block{{Type: tool.BlockText, Text: "other"}}
	if err := h.engine.CompleteCall(ctx, "s1", "a1", again); !errors.Is(err, ErrCallCompleted) {
		t.Fatalf("second report: %v, want ErrCallCompleted", err)
	}
	a, _ = h.store.GetAgentTask(ctx, "s1", d.ChildSessionID)
	if a.State != store.AgentCompleted || a.Report != "3 files" || a.Usage == nil || a.Usage.Tokens != 110 || a.Ended.IsZero() {
		t.Fatalf("task after the report %+v", a)
	}
	// The report, once, is the agent's notification for the parent.
	p, err := h.store.ReadNotifications(ctx, "s1", 0, 0, 0)
	if err != nil || len(p.Notifications) != 1 {
		t.Fatalf("notifications %+v, %v", p.Notifications, err)
	}
	if n := p.Notifications[0]; n.Kind != store.NoteAgentEnded || n.TaskID != d.ChildSessionID || n.ToolUseID != "a1" || n.Status != store.AgentCompleted ||
		!strings.Contains(n.Text, "<summary>Agent \"Count files\" finished</summary>\n<result>3 files</result>") {
		t.Fatalf("notification %+v", n)
	}
}

// A foreground agent is no task: a final report of it is refused.
func TestForegroundAgentIsNoTask(t *testing.T) {
	h := newDelegHarness(t, time.Minute, "default")
	ctx := context.Background()
	sink, wait := h.start(ctx, t, call("a1", "Agent", map[string]any{"description": "x", "prompt": "x", "run_in_background": false}))
	d := <-sink.delegated
	if err := h.engine.CompleteCall(ctx, "s1", "a1", tool.Completion{Content: []tool.Block{{Type: tool.BlockText, Text: "done"}}}); err != nil {
		t.Fatal(err)
	}
	wait()
	if err := h.engine.CompleteCall(ctx, "s1", "a1", tool.Completion{Final: true, AgentID: d.ChildSessionID}); !errors.Is(err, ErrNoDelegatedCall) {
		t.Fatalf("final report of a foreground agent: %v", err)
	}
	if _, err := h.store.GetAgentTask(ctx, "s1", d.ChildSessionID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a foreground agent became a task: %v", err)
	}
}

// Once TaskStop stopped a background agent, its session runs no more
// calls (in-band refusals); before, and for a foreground agent, it does.
func TestStoppedAgentRunsNothing(t *testing.T) {
	h := newDelegHarness(t, time.Minute, "default")
	ctx := context.Background()
	sink, wait := h.start(ctx, t, call("a1", "Agent", map[string]any{"description": "x", "prompt": "x"}))
	d := <-sink.delegated
	if err := h.engine.CompleteCall(ctx, "s1", "a1", tool.Completion{Launched: true}); err != nil {
		t.Fatal(err)
	}
	wait()
	inChild := func(id string) *tool.Result {
		sink := &delegSink{delegated: make(chan *Delegation, 1)}
		if err := h.engine.Execute(ctx, d.ChildSessionID, []Request{call(id, "ListAgents", map[string]any{})}, sink); err != nil {
			t.Fatal(err)
		}
		return sink.results()[id]
	}
	if r := inChild("c1"); r.IsError {
		t.Fatalf("a running agent's call: %q", resText(r))
	}
	if _, err := h.store.UpdateAgentTask(ctx, "s1", d.ChildSessionID, func(a *store.AgentTask) error {
		a.State = store.AgentKilled
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if r := inChild("c2"); !r.IsError || r.Kind != tool.KindCancelled || !strings.Contains(resText(r), "This agent was stopped with TaskStop") {
		t.Fatalf("a stopped agent's call: %+v %q", r, resText(r))
	}
}
