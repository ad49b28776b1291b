package agenttasks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/agenttasks"
	"github.com/toold/toold/internal/tools/killshell"
	"github.com/toold/toold/internal/tools/shells"
	"github.com/toold/toold/internal/tools/taskoutput"
)

type fixture struct {
	st             *memstore.Store
	output, killer tool.Tool
	env            *tool.Env
}

func setup(t *testing.T) *fixture {
	t.Helper()
	reg, err := shells.New(shells.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	st := memstore.New()
	env, _, _ := tooltest.Env(t)
	for _, id := range []string{env.SessionID, "other"} {
		if err := st.CreateSession(context.Background(), &store.Session{ID: id, Workspace: env.Cwd, Cwd: env.Cwd}); err != nil {
			t.Fatal(err)
		}
	}
	return &fixture{st: st, output: taskoutput.NewWithAgents(reg, st), killer: killshell.NewWithAgents(reg, st, notify.New(st, nil)), env: env}
}

func (f *fixture) launch(t *testing.T, id string) {
	t.Helper()
	err := agenttasks.Launch(context.Background(), f.st, f.env.SessionID, store.AgentTask{ID: id, ToolUseID: "toolu_" + id, AgentType: "Explore", Description: "Count files", Started: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, tl tool.Tool, env *tool.Env, in map[string]any) (string, error) {
	t.Helper()
	res, err := tooltest.Run(t, tl, env, in)
	if err != nil {
		return "", err
	}
	return tooltest.Text(res), nil
}

// TaskOutput of a running agent says so (and, blocking, that it timed
// out); once the report is in, it is Claude Code's task-notification.
// Blocking, it returns as soon as the report arrives.
func TestTaskOutputOfAnAgent(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	f.launch(t, "ag1")
	got, err := run(t, f.output, f.env, map[string]any{"task_id": "ag1", "block": false})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<task_id>ag1</task_id>\n<task_type>local_agent</task_type>\n<status>running</status>\n<output>\n(no report yet: the agent is still working)\n</output>"; got != want {
		t.Fatalf("running: %q", got)
	}
	got, _ = run(t, f.output, f.env, map[string]any{"task_id": "ag1", "timeout": 50})
	if !strings.Contains(got, "<retrieval_status>timeout</retrieval_status>") {
		t.Fatalf("a blocking read that timed out: %q", got)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		agenttasks.Finish(ctx, f.st, f.env.SessionID, "ag1", agenttasks.Report{ToolUseID: "toolu_ag1", Text: "There are 3 files.", Usage: &store.AgentTaskUsage{Tokens: 110, ToolUses: 0, DurationMS: 413}}, time.Now())
	}()
	got, err = run(t, f.output, f.env, map[string]any{"task_id": "ag1", "timeout": 600000})
	if err != nil {
		t.Fatal(err)
	}
	want := "<task-notification>\n<task-id>ag1</task-id>\n<tool-use-id>toolu_ag1</tool-use-id>\n<status>completed</status>\n<summary>Agent \"Count files\" finished</summary>\n<result>There are 3 files.</result>\n<usage><subagent_tokens>110</subagent_tokens><tool_uses>0</tool_uses><duration_ms>413</duration_ms></usage>\n</task-notification>"
	if got != want {
		t.Fatalf("ended:\n%s\nwant\n%s", got, want)
	}
	// Read again: the same (the report stays).
	if again, _ := run(t, f.output, f.env, map[string]any{"task_id": "ag1"}); again != want {
		t.Fatalf("second read: %q", again)
	}
	// Another session has no such task.
	other := *f.env
	other.SessionID = "other"
	if _, err := run(t, f.output, &other, map[string]any{"task_id": "ag1"}); err == nil || !strings.Contains(err.Error(), "No background shell with ID ag1") {
		t.Fatalf("another session's read: %v", err)
	}
}

// TaskStop of a running agent ends its task as killed, in Claude Code's
// words; a report after it is refused; a second stop, and a stop of an
// agent that reported, are Claude Code's "not running".
func TestTaskStopOfAnAgent(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	f.launch(t, "ag1")
	got, err := run(t, f.killer, f.env, map[string]any{"task_id": "ag1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"message":"Successfully stopped task: ag1 (Count files)","task_id":"ag1","task_type":"local_agent","command":"Count files"}`; got != want {
		t.Fatalf("stop: %s", got)
	}
	_, err = agenttasks.Finish(ctx, f.st, f.env.SessionID, "ag1", agenttasks.Report{ToolUseID: "toolu_ag1", Text: "late"}, time.Now())
	var ended *agenttasks.EndedError
	if !errors.As(err, &ended) || ended.Task.State != store.AgentKilled {
		t.Fatalf("report after a stop: %v", err)
	}
	if _, err := run(t, f.killer, f.env, map[string]any{"task_id": "ag1"}); err == nil || err.Error() != "Task ag1 is not running (status: killed)" {
		t.Fatalf("second stop: %v", err)
	}
	out, _ := run(t, f.output, f.env, map[string]any{"task_id": "ag1"})
	want := "<task-notification>\n<task-id>ag1</task-id>\n<tool-use-id>toolu_ag1</tool-use-id>\n<status>killed</status>\n<summary>Agent \"Count files\" was stopped by Claude</summary>\n</task-notification>"
	if out != want {
		t.Fatalf("TaskOutput of a stopped agent: %q", out)
	}
	// The stop, and only the stop, queued the notification Claude Code
	// gives the parent.
	p, err := f.st.ReadNotifications(ctx, f.env.SessionID, 0, 0, 0)
	if err != nil || len(p.Notifications) != 1 {
		t.Fatalf("notifications %+v, %v", p.Notifications, err)
	}
	if n := p.Notifications[0]; n.Kind != store.NoteAgentEnded || n.Status != store.AgentKilled || n.TaskID != "ag1" || n.ToolUseID != "toolu_ag1" || n.Text != want {
		t.Fatalf("notification %+v", n)
	}
	f.launch(t, "ag2")
	if _, err := agenttasks.Finish(ctx, f.st, f.env.SessionID, "ag2", agenttasks.Report{ToolUseID: "toolu_ag2", Text: "x", Failed: true}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, f.killer, f.env, map[string]any{"task_id": "ag2"}); err == nil || err.Error() != "Task ag2 is not running (status: failed)" {
		t.Fatalf("stop of a failed agent: %v", err)
	}
	if _, err := run(t, f.killer, f.env, map[string]any{"task_id": "nope"}); err == nil || err.Error() != "No task found with ID: nope" {
		t.Fatalf("stop of no task: %v", err)
	}
}

// A report names the call that launched the agent; a launch replayed
// changes nothing.
func TestFinishChecks(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	f.launch(t, "ag1")
	if _, err := agenttasks.Finish(ctx, f.st, f.env.SessionID, "ag1", agenttasks.Report{ToolUseID: "toolu_other"}, time.Now()); !errors.Is(err, agenttasks.ErrWrongCall) {
		t.Fatalf("report from another call: %v", err)
	}
	if _, err := agenttasks.Finish(ctx, f.st, f.env.SessionID, "nope", agenttasks.Report{}, time.Now()); !errors.Is(err, agenttasks.ErrNotFound) {
		t.Fatalf("report of no agent: %v", err)
	}
	if _, err := agenttasks.Finish(ctx, f.st, "no-session", "ag1", agenttasks.Report{}, time.Now()); !errors.Is(err, agenttasks.ErrNotFound) {
		t.Fatalf("report in no session: %v", err)
	}
	if _, err := agenttasks.Finish(ctx, f.st, f.env.SessionID, "ag1", agenttasks.Report{ToolUseID: "toolu_ag1", Text: "ok"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	f.launch(t, "ag1")
	if a, _ := f.st.GetAgentTask(ctx, f.env.SessionID, "ag1"); a.State != store.AgentCompleted || a.Report != "ok" {
		t.Fatalf("a replayed launch changed the task: %+v", a)
	}
	// A wait cancelled returns the cancellation.
	f.launch(t, "ag3")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := agenttasks.Wait(cctx, f.st, f.env.SessionID, "ag3", time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
}

// A report longer than the notification queue takes is cut in the
// notification, which says so; TaskOutput still has it whole.
func TestNotificationOfALongReport(t *testing.T) {
	a := &store.AgentTask{ID: "ag1", ToolUseID: "toolu_ag1", Description: "Count files", State: store.AgentCompleted,
		Report: strings.Repeat("é", store.MaxNotificationBytes)}
	n := agenttasks.Notification(a)
	if len(n.Text) > store.MaxNotificationBytes || !strings.Contains(n.Text, "é\n[The report is cut here; TaskOutput with this task_id returns it whole.]</result>") {
		t.Fatalf("notification of %d bytes: ...%q", len(n.Text), n.Text[len(n.Text)-200:])
	}
	if err := store.CheckNotification(n); err != nil {
		t.Fatal(err)
	}
	a.Report = "short"
	if n := agenttasks.Notification(a); n.Text != agenttasks.Output(a, false) || n.Kind != store.NoteAgentEnded || n.Status != store.AgentCompleted {
		t.Fatalf("notification %+v", n)
	}
}
