package monitor

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/shells"
)

// hangGuard bounds every wait in these tests. It is not a speed
// requirement: a test that needs it has hung.
const hangGuard = time.Minute

type fixture struct {
	reg *shells.Registry
	st  *memstore.Store
	m   tool.Tool
	env *tool.Env

	mu       sync.Mutex
	finished map[string]chan struct{}
}

func setup(t *testing.T) *fixture {
	t.Helper()
	reg, err := shells.New(shells.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	env, _, _ := tooltest.Env(t)
	st := memstore.New()
	if err := st.CreateSession(context.Background(), &store.Session{ID: env.SessionID}); err != nil {
		t.Fatal(err)
	}
	f := &fixture{reg: reg, st: st, env: env, finished: map[string]chan struct{}{}}
	m := New(Options{Shells: reg, Notify: notify.New(st, nil)})
	m.(*monitorTool).finished = func(id string) { close(f.done(id)) }
	f.m = m
	return f
}

// done is closed once the monitor's watch has posted its last notification.
func (f *fixture) done(id string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished[id] == nil {
		f.finished[id] = make(chan struct{})
	}
	return f.finished[id]
}

// start runs a Monitor call, checks that it returned at once with Claude
// Code's words, and returns the task id.
func (f *fixture) start(t *testing.T, in map[string]any) string {
	t.Helper()
	res, err := tooltest.Run(t, f.m, f.env, in)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.Meta["task_id"].(string)
	ms, _ := in["timeout_ms"].(int)
	if want := started(id, time.Duration(ms)*time.Millisecond); id == "" || res.IsError || tooltest.Text(res) != want {
		t.Fatalf("result %q, want %q", tooltest.Text(res), want)
	}
	return id
}

// wait waits for the monitor's watch to end and returns its notifications.
func (f *fixture) wait(t *testing.T, id string) []store.Notification {
	t.Helper()
	select {
	case <-f.done(id):
	case <-time.After(hangGuard):
		t.Fatal("the monitor's watch never ended")
	}
	p, err := f.st.ReadNotifications(context.Background(), f.env.SessionID, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p.Notifications
}

func kinds(ns []store.Notification) string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Kind+":"+n.Status)
	}
	return strings.Join(out, " ")
}

// The call returns at once; each batch of lines is a notification of its
// own, standard error is none, and the end brings the last lines.
func TestEventsThenEnd(t *testing.T) {
	f := setup(t)
	id := f.start(t, map[string]any{
		"description": "letters", "timeout_ms": 60000,
		"command": "printf 'a\\nb\\n'; echo err >&2; sleep 1; echo c; sleep 1; printf 'd\\ne'; exit 3",
	})
	if info, _ := f.reg.Status(f.env.SessionID, id); info.Kind != shells.KindMonitor {
		t.Fatalf("the monitor's task: %+v", info)
	}
	ns := f.wait(t, id)
	if got := kinds(ns); got != "monitor_event: monitor_event: monitor_ended:failed" {
		t.Fatalf("notifications %s", got)
	}
	if !strings.Contains(ns[0].Text, "<event>a\nb</event>") || !strings.Contains(ns[1].Text, "<event>c</event>") {
		t.Fatalf("events %q, %q", ns[0].Text, ns[1].Text)
	}
	want := "<task-notification>\n<task-id>" + id + "</task-id>\n<tool-use-id>toolu_test</tool-use-id>\n<output-file>toold-task://" + id + ".output</output-file>\n<status>failed</status>\n<summary>Monitor \"letters\" script failed (exit 3)</summary>\n<event>d\ne</event>\n</task-notification>"
	if ns[2].Text != want {
		t.Fatalf("end %q\nwant %q", ns[2].Text, want)
	}
	for _, n := range ns {
		if n.TaskID != id || n.ToolUseID != "toolu_test" || n.At.IsZero() || strings.Contains(n.Text, "err") {
			t.Fatalf("notification %+v", n)
		}
	}
	if out := outputFile(t, f, id); !strings.Contains(out, "err\n") {
		t.Fatalf("standard error is not in the output file: %q", out)
	}
}

func outputFile(t *testing.T, f *fixture, id string) string {
	t.Helper()
	rd, _, err := f.reg.OpenOutput(f.env.SessionID, id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rd)
	return string(b)
}

func TestEndWithoutOutput(t *testing.T) {
	f := setup(t)
	for _, c := range []struct{ command, summary, status string }{
		{"echo only-stderr >&2; exit 4", `Monitor "quiet" script failed (exit 4)`, "failed"},
		{"true", `Monitor "quiet" ended without producing output (exit 0)`, "completed"},
		// A blank line is output, though no event.
		{"echo", `Monitor "quiet" stream ended`, "completed"},
	} {
		id := f.start(t, map[string]any{"description": "quiet", "timeout_ms": 60000, "command": c.command})
		ns := f.wait(t, id)
		last := ns[len(ns)-1]
		if last.TaskID != id || last.Kind != store.NoteMonitorEnded || last.Status != c.status ||
			!strings.HasSuffix(last.Text, "<summary>"+c.summary+"</summary>\n</task-notification>") {
			t.Fatalf("%s: %+v", c.command, last)
		}
	}
}

// At its timeout a monitor is stopped with one notice, in Claude Code's
// words, and nothing after it.
func TestExpiry(t *testing.T) {
	f := setup(t)
	id := f.start(t, map[string]any{"description": "silent", "timeout_ms": 1000, "command": "exec sleep 300"})
	ns := f.wait(t, id)
	if len(ns) != 1 || ns[0].Kind != store.NoteMonitorNotice ||
		!strings.Contains(ns[0].Text, "<event>[Monitor expired after 1s with no events delivered. Re-arm it if you still need the watch \u2014 and widen the filter if silence was unexpected.]</event>") {
		t.Fatalf("notifications %+v", ns)
	}
	if info, _ := f.reg.Status(f.env.SessionID, id); info.State != shells.Killed {
		t.Fatalf("after expiry: %v", info.State)
	}
}

func TestExpiryAfterEvents(t *testing.T) {
	f := setup(t)
	id := f.start(t, map[string]any{"description": "once", "timeout_ms": 1500, "command": "echo start; exec sleep 300"})
	ns := f.wait(t, id)
	if got := kinds(ns); got != "monitor_event: monitor_notice:" || !strings.Contains(ns[1].Text, "[Monitor expired after 1s with 1 event delivered. Re-arm it if you still need the watch.]") {
		t.Fatalf("notifications %s: %+v", got, ns)
	}
}

// A silent command that wrote to standard error is pointed at, by its
// output file, in the expiry notice.
func TestExpiryNamesStderr(t *testing.T) {
	f := setup(t)
	id := f.start(t, map[string]any{"description": "stderr", "timeout_ms": 1000, "command": "echo err >&2; exec sleep 300"})
	ns := f.wait(t, id)
	if len(ns) != 1 || !strings.Contains(ns[0].Text, "Its command wrote to stderr, which isn't delivered as events and may mean it failed: see `toold-task://"+id+".output`. Re-arm") {
		t.Fatalf("notifications %+v", ns)
	}
}

// TaskStop (or its session's end) kills a monitor without a word, as in
// Claude Code.
func TestKilledMonitorSaysNothing(t *testing.T) {
	f := setup(t)
	id := f.start(t, map[string]any{"description": "stop me", "timeout_ms": 60000, "command": "echo one; exec sleep 300"})
	ctx := context.Background()
	if _, err := f.st.ReadNotifications(ctx, f.env.SessionID, 0, 0, hangGuard); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.Kill(ctx, f.env.SessionID, id); err != nil {
		t.Fatal(err)
	}
	if got := kinds(f.wait(t, id)); got != "monitor_event:" {
		t.Fatalf("notifications %s", got)
	}
}

func TestParse(t *testing.T) {
	f := setup(t)
	_, err := f.m.Parse([]byte(`{"description": "x", "timeout_ms": 5000}`))
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || !strings.Contains(te.Msg, "exactly one of command or ws") {
		t.Fatalf("no command: %v", err)
	}
	inv, err := f.m.Parse([]byte(`{"description": "x", "timeout_ms": 3600000, "command": "true"}`))
	if err != nil || inv.(*call).timeout != 10*time.Minute {
		t.Fatalf("timeout past the cap: %v %v", err, inv)
	}
	inv, err = f.m.Parse([]byte(`{"description": "x", "command": "true"}`))
	if err != nil || inv.(*call).timeout != 5*time.Minute {
		t.Fatalf("default timeout: %v %v", err, inv)
	}
	if d := f.m.Definition(); d.DecideAs != "Bash" {
		t.Fatalf("Monitor is decided as %q", d.DecideAs)
	}
}

func TestOtherSessionCannotSeeIt(t *testing.T) {
	f := setup(t)
	id := f.start(t, map[string]any{"description": "x", "timeout_ms": 60000, "command": "echo hi; exec sleep 300"})
	if _, _, err := f.reg.OpenOutput("another-session", id); !errors.Is(err, shells.ErrNotFound) {
		t.Fatalf("another session opened the monitor's output: %v", err)
	}
}

// Without a notification queue the tool refuses to run: its events would
// reach no one.
func TestNeedsAQueue(t *testing.T) {
	reg, err := shells.New(shells.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	env, _, _ := tooltest.Env(t)
	_, err = tooltest.Run(t, New(Options{Shells: reg}), env, map[string]any{"description": "x", "timeout_ms": 5000, "command": "true"})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindUnavailable || len(reg.List(env.SessionID)) != 0 {
		t.Fatalf("Monitor without a queue: %v, %d tasks", err, len(reg.List(env.SessionID)))
	}
}
