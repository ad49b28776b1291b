package bash

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/shells"
)

// runMoved runs a command that outlives its 1 s timeout and must be moved
// to the background; it returns the result and the shell's id.
func runMoved(t *testing.T, tl tool.Tool, env *tool.Env, command string) (*tool.Result, string) {
	t.Helper()
	res, err := run(t, tl, env, map[string]any{"command": command, "timeout": 1000})
	if err != nil {
		t.Fatalf("err = %v, want a moved command", err)
	}
	id, _ := res.Meta["task_id"].(string)
	text := tooltest.Text(res)
	if res.IsError || id == "" || res.Meta["moved_at_timeout"] != true ||
		!strings.Contains(text, "Command did not complete within its 1s timeout and was moved to the background (ID: "+id+").") {
		t.Fatalf("result: IsError %v, Meta %v, text %q", res.IsError, res.Meta, text)
	}
	return res, id
}

func TestTimeoutMovesToBackground(t *testing.T) {
	tl, reg := newBackgroundTool(t)
	env, _, rec := tooltest.Env(t)
	res, id := runMoved(t, tl, env, "bash -c 'echo a; sleep 3; echo b'")
	text := tooltest.Text(res)
	// The output so far comes first, when the command got to print it
	// within the second (a loaded machine may not have).
	if strings.HasPrefix(text, "a\n") == strings.Contains(text, "No output had been read") {
		t.Errorf("text %q: output so far and the no-output note disagree", text)
	}
	if strings.Contains(text, "b") && strings.Contains(strings.SplitN(text, "\n", 2)[0], "b") {
		t.Errorf("text %q has output from after the move", text)
	}
	if info, err := reg.Status(env.SessionID, id); err != nil || info.Command != "bash -c 'echo a; sleep 3; echo b'" {
		t.Fatalf("shell %+v, %v", info, err)
	}
	out := readToEnd(t, reg, env.SessionID, id)
	if out.Text != "a\nb\n" || out.Info.State != shells.Completed || out.Info.ExitCode != 0 {
		t.Fatalf("background output %q, state %v, exit %d", out.Text, out.Info.State, out.Info.ExitCode)
	}
	// What came after the move went to the shell only, not to the
	// call's progress, which ended with the call.
	if strings.Contains(string(rec.Out), "b") {
		t.Errorf("progress got output from after the move: %q", rec.Out)
	}
}

func TestSleepIsKilledAtTheTimeout(t *testing.T) {
	tl, reg := newBackgroundTool(t)
	for _, cmd := range []string{"sleep 5", "  sleep 5; echo late"} {
		env, _, _ := tooltest.Env(t)
		_, err := run(t, tl, env, map[string]any{"command": cmd, "timeout": 1000})
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tool.KindTimeout || te.Msg != "Exit code 143\nCommand timed out after 1s" {
			t.Errorf("%q: err = %v, want the timeout", cmd, err)
		}
		if l := reg.List(env.SessionID); len(l) != 0 {
			t.Errorf("%q: a killed command left shells %+v", cmd, l)
		}
	}
}

// A sleep that is not the first word does not keep the command from moving.
func TestOtherFirstWordMoves(t *testing.T) {
	tl, reg := newBackgroundTool(t)
	env, _, _ := tooltest.Env(t)
	_, id := runMoved(t, tl, env, "FOO=1 sleep 2")
	if out := readToEnd(t, reg, env.SessionID, id); out.Info.State != shells.Completed {
		t.Fatalf("state %v", out.Info.State)
	}
}

func TestTimeoutKillsOption(t *testing.T) {
	reg, err := shells.New(shells.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	tl := New(Options{TempDir: t.TempDir(), Shells: reg, TimeoutKills: true})
	env, _, _ := tooltest.Env(t)
	_, err = run(t, tl, env, map[string]any{"command": "echo a; sleep 5", "timeout": 1000})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindTimeout || !strings.HasPrefix(te.Msg, "Exit code 143\nCommand timed out after 1s") {
		t.Fatalf("err = %v, want the timeout", err)
	}
	if l := reg.List(env.SessionID); len(l) != 0 {
		t.Errorf("shells %+v", l)
	}
}

// Without background shells there is nowhere to move to: the command is
// killed at its timeout.
func TestTimeoutWithoutRegistryKills(t *testing.T) {
	tl := newTool(t)
	env, _, _ := tooltest.Env(t)
	_, err := run(t, tl, env, map[string]any{"command": "echo a; sleep 5", "timeout": 1000})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindTimeout {
		t.Fatalf("err = %v, want the timeout", err)
	}
}

// When the session has as many running shells as it may keep, the command
// is killed at its timeout as before.
func TestTimeoutAtShellLimitKills(t *testing.T) {
	reg, err := shells.New(shells.Options{Dir: t.TempDir(), MaxShells: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	tl := New(Options{TempDir: t.TempDir(), Shells: reg})
	env, _, _ := tooltest.Env(t)
	startBackground(t, tl, env, map[string]any{"command": "exec sleep 300"})
	_, err = run(t, tl, env, map[string]any{"command": "echo a; sleep 5", "timeout": 1000})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindTimeout || !strings.HasPrefix(te.Msg, "Exit code 143\nCommand timed out after 1s") {
		t.Fatalf("err = %v, want the timeout", err)
	}
}

// A moved command is a background shell: KillShell's Kill stops its whole
// process group, and so does the end of its session.
func TestMovedCommandIsKilledWithItsShell(t *testing.T) {
	tl, reg := newBackgroundTool(t)
	cmd := "echo started; sleep 100 & echo $! > pid; wait"
	env, _, _ := tooltest.Env(t)
	_, id := runMoved(t, tl, env, cmd)
	waitFor(t, func() bool { _, err := os.Stat(env.Cwd + "/pid"); return err == nil })
	pid := readPid(t, env.Cwd, "pid")
	info, err := reg.Kill(context.Background(), env.SessionID, id)
	if err != nil || info.State != shells.Killed {
		t.Fatalf("kill: %+v, %v", info, err)
	}
	waitDead(t, pid)

	env2, _, _ := tooltest.Env(t)
	runMoved(t, tl, env2, cmd)
	waitFor(t, func() bool { _, err := os.Stat(env2.Cwd + "/pid"); return err == nil })
	pid = readPid(t, env2.Cwd, "pid")
	if err := reg.CloseSession(env2.SessionID); err != nil {
		t.Fatal(err)
	}
	waitDead(t, pid)
}

// The per-call cwd file outlives the call while the command runs and is
// removed when it ends; the session's directory does not follow a cd of
// the moved command.
func TestMovedCommandCleansUp(t *testing.T) {
	tl, reg := newBackgroundTool(t)
	env, st, _ := tooltest.Env(t)
	mustRun(t, tl, env, "mkdir sub")
	_, id := runMoved(t, tl, env, "cd sub; echo x; sleep 2")
	readToEnd(t, reg, env.SessionID, id)
	dir := tl.(*bashTool).stateDir
	waitFor(t, func() bool {
		ents, err := os.ReadDir(dir)
		return err == nil && len(ents) == 0
	})
	if st.Cwd != env.Cwd {
		t.Errorf("session directory %s, want %s", st.Cwd, env.Cwd)
	}
}

func TestMovedText(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{time.Second, "1s"}, {1500 * time.Millisecond, "2s"}, {1200 * time.Millisecond, "1s"}, {2500 * time.Millisecond, "3s"}, {time.Millisecond, "1s"}, {120 * time.Second, "120s"}} {
		if got := roundSeconds(tc.d); got != tc.want {
			t.Errorf("roundSeconds(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if s := movedText(time.Second, "bash_1", true); !strings.Contains(s, "No output had been read") {
		t.Errorf("no-output text %q", s)
	}
	if s := movedText(time.Second, "bash_1", false); strings.Contains(s, "No output had been read") || !strings.Contains(s, "TaskStop") {
		t.Errorf("text %q", s)
	}
}

// A negative timeout: a sleep is killed at once, with the timeout in the
// message as given; another command is moved after a second, or, when it
// succeeded by then, reported as started in the background; a failure is
// reported as such.
func TestNegativeTimeout(t *testing.T) {
	tl, reg := newBackgroundTool(t)

	env, _, _ := tooltest.Env(t)
	_, err := run(t, tl, env, map[string]any{"command": "sleep 5", "timeout": -1500})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindTimeout || te.Msg != "Exit code 143\nCommand timed out after -1.5s" {
		t.Errorf("sleep: err = %v", err)
	}
	_, err = run(t, tl, env, map[string]any{"command": "sleep 5", "timeout": -1})
	if !errors.As(err, &te) || te.Msg != "Exit code 143\nCommand timed out after -0.0s" {
		t.Errorf("sleep -1: err = %v", err)
	}

	res, err := run(t, tl, env, map[string]any{"command": "echo bad; exit 3", "timeout": -1})
	if err != nil || !res.IsError || tooltest.Text(res) != "Exit code 3\nbad" {
		t.Errorf("failure: %v, %v", res, err)
	}

	res, err = run(t, tl, env, map[string]any{"command": "echo quick", "timeout": -1000})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.Meta["task_id"].(string)
	if text := tooltest.Text(res); res.IsError || id == "" {
		t.Fatalf("quick: %q %v", text, res.Meta)
	} else if text != "quick\n"+backgroundStarted(id) && !strings.Contains(text, "was moved to the background") {
		// A loaded machine may take over a second to run echo.
		t.Errorf("quick: %q", text)
	}
	if out := readToEnd(t, reg, env.SessionID, id); out.Text != "quick\n" || out.Info.State != shells.Completed {
		t.Errorf("quick: shell output %q, state %v", out.Text, out.Info.State)
	}

	res, err = run(t, tl, env, map[string]any{"command": "echo a; sleep 3", "timeout": -5})
	if err != nil || res.IsError || !strings.Contains(tooltest.Text(res), "Command did not complete within its 1s timeout and was moved to the background") {
		t.Errorf("long: %v, %v", res, err)
	}
}
