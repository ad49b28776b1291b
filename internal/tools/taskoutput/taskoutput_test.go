package taskoutput

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/shells"
)

// hangGuard bounds every wait in these tests. It is not a speed
// requirement: a test that needs it has hung.
const hangGuard = time.Minute

func setup(t *testing.T, opts shells.Options) (tool.Tool, *shells.Registry, *tool.Env) {
	t.Helper()
	opts.Dir = t.TempDir()
	reg, err := shells.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	env, _, _ := tooltest.Env(t)
	return New(reg), reg, env
}

// start runs command as a background shell of env's session.
func start(t *testing.T, reg *shells.Registry, env *tool.Env, command string) string {
	t.Helper()
	info, err := reg.Start(env.SessionID, shells.Spec{
		Path: "/bin/bash", Args: []string{"bash", "-c", command},
		Dir: env.Cwd, Env: env.Environ, Command: command,
	})
	if err != nil {
		t.Fatal(err)
	}
	return info.ID
}

// waitWritten waits until the shell has written at least n bytes.
func waitWritten(t *testing.T, reg *shells.Registry, env *tool.Env, id string, n int64) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		info, err := reg.Status(env.SessionID, id)
		if err != nil {
			t.Fatal(err)
		}
		if info.OutputBytes >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s wrote %d bytes, want %d", id, info.OutputBytes, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitEnded waits until the shell has ended, without reading its output.
func waitEnded(t *testing.T, reg *shells.Registry, env *tool.Env, id string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		info, err := reg.Status(env.SessionID, id)
		if err != nil {
			t.Fatal(err)
		}
		if info.State != shells.Running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still running", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func runTool(t *testing.T, tl tool.Tool, env *tool.Env, in map[string]any) (*tool.Result, error) {
	t.Helper()
	if _, ok := in["timeout"]; !ok {
		in["timeout"] = float64(hangGuard / time.Millisecond)
	}
	return tooltest.Run(t, tl, env, in)
}

func mustCall(t *testing.T, tl tool.Tool, env *tool.Env, in map[string]any) (*tool.Result, string) {
	t.Helper()
	res, err := runTool(t, tl, env, in)
	if err != nil {
		t.Fatalf("TaskOutput %v: %v", in, err)
	}
	return res, tooltest.Text(res)
}

func TestDefinition(t *testing.T) {
	tl, _, _ := setup(t, shells.Options{})
	d := tl.Definition()
	if d.Name != "TaskOutput" || len(d.Aliases) != 1 || d.Aliases[0] != "BashOutput" {
		t.Fatalf("definition: %s %v", d.Name, d.Aliases)
	}
	r, err := tool.NewRegistry(tl)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := r.Lookup("BashOutput"); !ok || got != tl {
		t.Fatal("BashOutput does not reach TaskOutput")
	}
}

func TestParseErrors(t *testing.T) {
	tl, _, _ := setup(t, shells.Options{})
	cases := map[string]map[string]any{
		"no id":            {},
		"empty id":         {"task_id": ""},
		"two ids":          {"task_id": "bash_a", "bash_id": "bash_b"},
		"bad filter":       {"task_id": "bash_a", "filter": "(unclosed"},
		"negative timeout": {"task_id": "bash_a", "timeout": -1},
		"timeout too long": {"task_id": "bash_a", "timeout": 600001},
	}
	for name, in := range cases {
		_, err := tooltest.Run(t, tl, nil, in)
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput {
			t.Errorf("%s: err = %v, want invalid input", name, err)
		}
	}
}

func TestReadsOnlyNewOutput(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{})
	id := start(t, reg, env, "echo first; while [ ! -e go ]; do sleep 0.01; done; echo second; exit 3")
	waitWritten(t, reg, env, id, int64(len("first\n")))

	res, text := mustCall(t, tl, env, map[string]any{"task_id": id, "block": false})
	want := "<task_id>" + id + "</task_id>\n<status>running</status>\n<output>\nfirst\n</output>"
	if text != want || res.IsError || res.Meta["status"] != "running" {
		t.Fatalf("first read:\n%s\nwant:\n%s", text, want)
	}
	if err := os.WriteFile(filepath.Join(env.Cwd, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res, text = mustCall(t, tl, env, map[string]any{"task_id": id})
	want = "<task_id>" + id + "</task_id>\n<status>failed</status>\n<exit_code>3</exit_code>\n<output>\nsecond\n</output>"
	if text != want || res.Meta["exit_code"] != 3 {
		t.Fatalf("second read (block waits for the end):\n%s\nwant:\n%s", text, want)
	}
	_, text = mustCall(t, tl, env, map[string]any{"task_id": id})
	if !strings.Contains(text, "(no new output; the command has ended)") {
		t.Fatalf("third read:\n%s", text)
	}
}

func TestBashIDDoesNotBlock(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{})
	id := start(t, reg, env, "exec sleep 300")
	res, text := mustCall(t, tl, env, map[string]any{"bash_id": id, "timeout": 600000})
	if res.Meta["timed_out"] != false || !strings.Contains(text, "<status>running</status>") || !strings.Contains(text, "(no new output)") {
		t.Fatalf("BashOutput-style read:\n%s\n%v", text, res.Meta)
	}
}

func TestBlockTimesOut(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{})
	id := start(t, reg, env, "echo started; exec sleep 300")
	// The read times out whenever the shell is slow to start; what it
	// returns then is only known once the shell has written its line.
	waitWritten(t, reg, env, id, int64(len("started\n")))
	res, text := mustCall(t, tl, env, map[string]any{"task_id": id, "timeout": 50})
	if res.Meta["timed_out"] != true || !strings.Contains(text, "<retrieval_status>timeout</retrieval_status>") ||
		!strings.Contains(text, "<status>running</status>") || !strings.Contains(text, "started") {
		t.Fatalf("timed-out read:\n%s", text)
	}
}

func TestFilter(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{})
	id := start(t, reg, env, `printf 'ok 1\nERROR disk\nok 2\nERROR net\n'`)
	waitEnded(t, reg, env, id)
	_, text := mustCall(t, tl, env, map[string]any{"task_id": id, "filter": "^ERROR"})
	if !strings.Contains(text, "<output>\nERROR disk\nERROR net\n</output>") {
		t.Fatalf("filtered read:\n%s", text)
	}
	_, text = mustCall(t, tl, env, map[string]any{"task_id": id, "block": false})
	if !strings.Contains(text, "(no new output") {
		t.Fatalf("filtered-out lines came back:\n%s", text)
	}
}

func TestFilterWaitsForAMatch(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{})
	id := start(t, reg, env, "echo compiling; while [ ! -e go ]; do sleep 0.01; done; echo 'listening on :8080'; exec sleep 300")
	done := make(chan string, 1)
	go func() {
		res, err := tooltest.Run(t, tl, env, map[string]any{"task_id": id, "filter": "listening", "timeout": float64(hangGuard / time.Millisecond)})
		if err != nil {
			done <- err.Error()
			return
		}
		done <- tooltest.Text(res)
	}()
	if err := os.WriteFile(filepath.Join(env.Cwd, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if text := <-done; !strings.Contains(text, "<status>running</status>") || !strings.Contains(text, "<output>\nlistening on :8080\n</output>") {
		t.Fatalf("read:\n%s", text)
	}
}

func TestLongOutputKeepsTheNewest(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{})
	id := start(t, reg, env, "seq 1 20000")
	res, text := mustCall(t, tl, env, map[string]any{"task_id": id})
	if !strings.Contains(text, "[Left out: the ") || !strings.HasSuffix(text, "\n19999\n20000\n</output>") {
		t.Fatalf("long read: %.300s ... %s", text, text[max(0, len(text)-100):])
	}
	if omitted := res.Meta["omitted_bytes"].(int64); omitted <= 0 || len(text) > maxOutputBytes+500 {
		t.Fatalf("omitted %d, text %d bytes", omitted, len(text))
	}
}

func TestDroppedOutputIsNoted(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{MaxOutputBytes: 4096})
	id := start(t, reg, env, "seq 1 3000")
	res, text := mustCall(t, tl, env, map[string]any{"task_id": id})
	if !strings.Contains(text, "[Earlier output dropped: ") || res.Meta["dropped_bytes"].(int64) <= 0 || !strings.HasSuffix(text, "3000\n</output>") {
		t.Fatalf("read past the cap: %.300s", text)
	}
}

func TestOtherSessionsShellIsUnknown(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{})
	id := start(t, reg, env, "echo secret; exec sleep 300")
	waitWritten(t, reg, env, id, int64(len("secret\n")))
	other, _, _ := tooltest.Env(t)
	other.SessionID = "other-session"

	_, foreign := runTool(t, tl, other, map[string]any{"task_id": id, "block": false})
	const never = "bash_ffffffffffff"
	_, unknown := runTool(t, tl, other, map[string]any{"task_id": never, "block": false})
	var te *tool.Error
	if !errors.As(foreign, &te) || te.Kind != tool.KindInvalidInput {
		t.Fatalf("foreign read: %v", foreign)
	}
	if foreign.Error() != strings.ReplaceAll(unknown.Error(), never, id) {
		t.Fatalf("a foreign shell is told apart from an unknown one:\n%v\n%v", foreign, unknown)
	}
	// The owner lists its shell in the same error; the other session does not.
	_, own := runTool(t, tl, env, map[string]any{"task_id": never, "block": false})
	if !strings.Contains(own.Error(), id) || strings.Contains(foreign.Error(), "running") {
		t.Fatalf("listings: own %q, foreign %q", own, foreign)
	}
	_, text := mustCall(t, tl, env, map[string]any{"task_id": id, "block": false})
	if !strings.Contains(text, "secret") {
		t.Fatalf("the foreign read consumed the owner's output:\n%s", text)
	}
}

func TestCancelWhileBlocking(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{})
	id := start(t, reg, env, "exec sleep 300")
	inv, err := tl.Parse([]byte(`{"task_id":"` + id + `","timeout":600000}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := inv.Run(ctx, env)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// A shell that a signal killed, or one whose process a signal killed, says
// so: the exit code alone does not tell a limit of the sandbox from a
// failure.
func TestKilledShellSaysWhy(t *testing.T) {
	tl, reg, env := setup(t, shells.Options{})
	cases := []struct {
		command, note, signal string
	}{
		{"echo before; kill -KILL $$", "[The command was killed by signal 9 (SIGKILL): sent by the kernel when the command runs out of memory (a memory limit of the sandbox), at the hard CPU time limit, or by kill -9.]", "SIGKILL"},
		{"ulimit -f 1; head -c 5000 /dev/zero > big; exit $?", "[Exit code 153 is 128+25: a process of the command was killed by signal 25 (SIGXFSZ): the command wrote past its file size limit.]", ""},
		{"exit 3", "", ""},
	}
	for _, c := range cases {
		id := start(t, reg, env, c.command)
		waitEnded(t, reg, env, id)
		res, text := mustCall(t, tl, env, map[string]any{"task_id": id, "block": false})
		if c.note != "" && !strings.Contains(text, "<output>\n"+c.note+"\n") || c.note == "" && strings.Contains(text, "[") {
			t.Errorf("%s:\n%s", c.command, text)
		}
		if sig, _ := res.Meta["signal"].(string); sig != c.signal {
			t.Errorf("%s: meta %v", c.command, res.Meta)
		}
	}
	id := start(t, reg, env, "exec sleep 300")
	if _, err := reg.Kill(context.Background(), env.SessionID, id); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, reg, env, id)
	if _, text := mustCall(t, tl, env, map[string]any{"task_id": id, "block": false}); !strings.Contains(text, "[The command was stopped: KillShell was called, or its session ended.]") {
		t.Errorf("killed shell:\n%s", text)
	}
}
