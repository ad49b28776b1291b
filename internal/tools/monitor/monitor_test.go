package monitor

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/shells"
)

func setup(t *testing.T) (*shells.Registry, tool.Tool, *tool.Env) {
	t.Helper()
	reg, err := shells.New(shells.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	env, _, _ := tooltest.Env(t)
	return reg, New(Options{Shells: reg}), env
}

func outputFile(t *testing.T, reg *shells.Registry, env *tool.Env, id string) string {
	t.Helper()
	rd, _, err := reg.OpenOutput(env.SessionID, id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rd)
	return string(b)
}

// TestEventEndsTheWait: the call returns with the first lines while the
// monitor keeps watching; standard error is no event.
func TestEventEndsTheWait(t *testing.T) {
	reg, m, env := setup(t)
	res, err := tooltest.Run(t, m, env, map[string]any{
		"description": "ready line", "timeout_ms": 60000,
		"command": "echo warming >&2; echo ready; exec sleep 300",
	})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Meta["task_id"].(string)
	text := tooltest.Text(res)
	if !strings.HasPrefix(text, "Monitor event: \"ready line\" (task "+id+")\nready\n\nThe monitor keeps watching") || strings.Contains(text, "warming") {
		t.Fatalf("result %q", text)
	}
	if info, _ := reg.Status(env.SessionID, id); info.State != shells.Running || info.Kind != shells.KindMonitor {
		t.Fatalf("monitor after the call: %+v", info)
	}
	if got := outputFile(t, reg, env, id); !strings.Contains(got, "warming\n") || !strings.Contains(got, "ready\n") {
		t.Fatalf("output file %q", got)
	}
}

func TestCommandEndsWithoutEvents(t *testing.T) {
	_, m, env := setup(t)
	res, err := tooltest.Run(t, m, env, map[string]any{"description": "quiet", "timeout_ms": 60000, "command": "echo only-stderr >&2; exit 4"})
	if err != nil {
		t.Fatal(err)
	}
	if text := tooltest.Text(res); !strings.Contains(text, "ended with no events: its command exited with code 4") {
		t.Fatalf("result %q", text)
	}
}

func TestEventsAndExitInOneBatch(t *testing.T) {
	_, m, env := setup(t)
	res, err := tooltest.Run(t, m, env, map[string]any{"description": "nums", "timeout_ms": 60000, "command": "echo one; echo two"})
	if err != nil {
		t.Fatal(err)
	}
	text := tooltest.Text(res)
	if !strings.Contains(text, "\none\ntwo\n\nThe monitor's command has ended (exit code 0)") {
		t.Fatalf("result %q", text)
	}
}

// TestExpiry: a monitor that reports nothing is stopped at its timeout,
// and the call says so in Claude Code's words.
func TestExpiry(t *testing.T) {
	reg, m, env := setup(t)
	res, err := tooltest.Run(t, m, env, map[string]any{"description": "silent", "timeout_ms": 1000, "command": "exec sleep 300"})
	if err != nil {
		t.Fatal(err)
	}
	if text := tooltest.Text(res); text != "Monitor expired after 1s with no events delivered. Re-arm it if you still need the watch — and widen the filter if silence was unexpected." {
		t.Fatalf("result %q", text)
	}
	if info, _ := reg.Status(env.SessionID, res.Meta["task_id"].(string)); info.State != shells.Killed {
		t.Fatalf("after expiry: %v", info.State)
	}
}

// TestCancelStopsTheMonitor: a call nobody waits for any more takes its
// monitor with it.
func TestCancelStopsTheMonitor(t *testing.T) {
	reg, m, env := setup(t)
	inv, err := m.Parse([]byte(`{"description": "x", "timeout_ms": 60000, "command": "exec sleep 300"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := inv.Run(ctx, env); done <- err }()
	for len(reg.List(env.SessionID)) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v", err)
	}
	if l := reg.List(env.SessionID); len(l) != 1 || l[0].State != shells.Killed {
		t.Fatalf("monitor after cancel: %+v", l)
	}
}

func TestParse(t *testing.T) {
	_, m, _ := setup(t)
	_, err := m.Parse([]byte(`{"description": "x", "timeout_ms": 5000}`))
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || !strings.Contains(te.Msg, "exactly one of command or ws") {
		t.Fatalf("no command: %v", err)
	}
	inv, err := m.Parse([]byte(`{"description": "x", "timeout_ms": 3600000, "command": "true"}`))
	if err != nil || inv.(*call).timeout != 10*time.Minute {
		t.Fatalf("timeout past the cap: %v %v", err, inv)
	}
	if d := m.Definition(); d.DecideAs != "Bash" {
		t.Fatalf("Monitor is decided as %q", d.DecideAs)
	}
}

func TestOtherSessionCannotSeeIt(t *testing.T) {
	reg, m, env := setup(t)
	res, err := tooltest.Run(t, m, env, map[string]any{"description": "x", "timeout_ms": 60000, "command": "echo hi; exec sleep 300"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.OpenOutput("another-session", res.Meta["task_id"].(string)); !errors.Is(err, shells.ErrNotFound) {
		t.Fatalf("another session opened the monitor's output: %v", err)
	}
}
