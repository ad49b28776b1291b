package bash

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// hangGuard bounds every call in these tests. It is not a speed
// requirement: a call that needs it has hung.
const hangGuard = 2 * time.Minute

func newTool(t testing.TB) tool.Tool {
	t.Helper()
	tl := New(Options{TempDir: t.TempDir()})
	if err := tl.(*bashTool).initErr; err != nil {
		t.Fatal(err)
	}
	return tl
}

func parse(t testing.TB, tl tool.Tool, in map[string]any) tool.Invocation {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := tl.Parse(raw)
	if err != nil {
		t.Fatalf("Parse(%s): %v", raw, err)
	}
	return inv
}

func run(t testing.TB, tl tool.Tool, env *tool.Env, in map[string]any) (*tool.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	return parse(t, tl, in).Run(ctx, env)
}

// mustRun runs a command that is expected to produce a result.
func mustRun(t testing.TB, tl tool.Tool, env *tool.Env, command string) *tool.Result {
	t.Helper()
	res, err := run(t, tl, env, map[string]any{"command": command})
	if err != nil {
		t.Fatalf("%q: %v", command, err)
	}
	return res
}

const killCause = "sent by the kernel when the command runs out of memory (a memory limit of the sandbox), at the hard CPU time limit, or by kill -9"

func TestResults(t *testing.T) {
	cases := []struct {
		name, command string
		text          string
		isError       bool
		exitCode      int
	}{
		{"stdout", "echo hello", "hello", false, 0},
		{"stderr after stdout", "echo err >&2; echo out", "out\nerr", false, 0},
		{"stderr only", "echo err >&2", "err", false, 0},
		{"no output", "true", "(Bash completed with no output)", false, 0},
		{"inner blank lines kept", "printf 'a\\n\\nb\\n\\n\\n'", "a\n\nb", false, 0},
		{"non-zero exit", "echo oops; exit 3", "Exit code 3\noops", true, 3},
		{"non-zero exit without output", "false", "Exit code 1", true, 1},
		{"killed by a signal", "echo before; kill -KILL $$", "Command was killed by signal 9 (SIGKILL): " + killCause + "\nbefore", true, 137},
		{"an exit code past the signals", "exit 200", "Exit code 200", true, 200},
		{"syntax error", "if then", "Exit code 2\n/bin/bash: -c: line 1: syntax error near unexpected token `then'\n/bin/bash: -c: line 1: `if then'", true, 2},
		{"stdin is empty", "cat; echo done", "done", false, 0},
		{"xtrace does not show the cwd capture", "cd .; set -x; echo hi", "hi\n+ echo hi", false, 0},
		{"line numbers are the command's", "cd .\nnot_a_command_x", "Exit code 127\n/bin/bash: line 2: not_a_command_x: command not found", true, 127},
		{"invalid utf-8 replaced", `printf 'a\377b'`, "a\uFFFDb", false, 0},
		{"environment from env.Environ", "echo $LANG", "C.UTF-8", false, 0},
	}
	tl := newTool(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, _, _ := tooltest.Env(t)
			res := mustRun(t, tl, env, c.command)
			text := tooltest.Text(res)
			if text != c.text {
				t.Errorf("text = %q, want %q", text, c.text)
			}
			if res.IsError != c.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, c.isError)
			}
			if c.isError && res.Kind != tool.KindFailed {
				t.Errorf("Kind = %v, want failed", res.Kind)
			}
			if res.Meta["exit_code"] != c.exitCode || res.Meta["truncated"] != false || res.Meta["cwd"] != env.Cwd {
				t.Errorf("Meta = %v, want exit_code %d, truncated false, cwd %s", res.Meta, c.exitCode, env.Cwd)
			}
		})
	}
}

func TestEnvironmentIsOnlyEnviron(t *testing.T) {
	t.Setenv("TOOLD_SECRET_TEST", "x")
	tl := newTool(t)
	env, _, _ := tooltest.Env(t)
	const cmd = `echo "[${TOOLD_SECRET_TEST-unset}]"; e=$(env); case $e in *TOOLD_SECRET*) echo leaked ;; *) echo clean ;; esac`
	if got := tooltest.Text(mustRun(t, tl, env, cmd)); got != "[unset]\nclean" {
		t.Errorf("with env.Environ: %q", got)
	}
	// A nil Environ must not fall back to the server's environment.
	env.Environ = nil
	if got := tooltest.Text(mustRun(t, tl, env, cmd)); got != "[unset]\nclean" {
		t.Errorf("with nil env.Environ: %q", got)
	}
}

func TestCdCarriesOver(t *testing.T) {
	tl := newTool(t)
	env, st, _ := tooltest.Env(t)
	sub := filepath.Join(env.Cwd, "a b")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, tl, env, `cd "a b"`)
	if st.Cwd != sub || res.Meta["cwd"] != sub {
		t.Fatalf("after cd: State.Cwd = %q, meta cwd = %v; want %q", st.Cwd, res.Meta["cwd"], sub)
	}
	if text := tooltest.Text(res); text != "(Bash completed with no output)" {
		t.Errorf("text = %q", text)
	}
	env.Cwd = st.Cwd // what the engine does for the next call
	if got := tooltest.Text(mustRun(t, tl, env, "pwd")); got != sub {
		t.Errorf("next call runs in %q, want %q", got, sub)
	}
	// A failing command still carries its cd over.
	if res := mustRun(t, tl, env, "cd .. && false"); st.Cwd != filepath.Dir(sub) || !res.IsError {
		t.Errorf("after cd .. && false: State.Cwd = %q, IsError %v", st.Cwd, res.IsError)
	}
	// A cd in a subshell does not move the shell.
	env.Cwd = st.Cwd
	mustRun(t, tl, env, `(cd "a b")`)
	if st.Cwd != env.Cwd {
		t.Errorf("after (cd sub): State.Cwd = %q, want %q", st.Cwd, env.Cwd)
	}
}

func TestCdIntoAdditionalDirectory(t *testing.T) {
	extra, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tl := newTool(t)
	env, st, _ := tooltest.Env(t, extra)
	res := mustRun(t, tl, env, "cd "+extra)
	if st.Cwd != extra || strings.Contains(tooltest.Text(res), "reset") {
		t.Errorf("State.Cwd = %q (text %q), want %q", st.Cwd, tooltest.Text(res), extra)
	}
}

func TestCdOutsideWorkspaceResets(t *testing.T) {
	tl := newTool(t)
	cases := []struct {
		name  string
		setup func(t *testing.T, ws, outside string) string // returns the command
	}{
		{"root", func(*testing.T, string, string) string { return "cd /" }},
		{"dot dot", func(*testing.T, string, string) string { return "cd ../.." }},
		{"absolute outside", func(_ *testing.T, _, outside string) string { return "cd " + outside }},
		{"sibling with the workspace as prefix", func(t *testing.T, ws, _ string) string {
			evil := ws + "-evil"
			if err := os.Mkdir(evil, 0o755); err != nil {
				t.Fatal(err)
			}
			return "cd " + evil
		}},
		{"symlink to an outside directory", func(t *testing.T, ws, outside string) string {
			if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
				t.Fatal(err)
			}
			return "cd " + ws + "/link"
		}},
		{"symlink chain", func(t *testing.T, ws, outside string) string {
			if err := os.Symlink(outside, filepath.Join(ws, "l1")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("l1", filepath.Join(ws, "l2")); err != nil {
				t.Fatal(err)
			}
			return "cd ../l2"
		}},
		{"proc self root", func(_ *testing.T, _, outside string) string { return "cd /proc/self/root" + outside }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, st, _ := tooltest.Env(t)
			ws := env.Cwd
			outside, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sub := filepath.Join(ws, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			command := c.setup(t, ws, outside)
			env.Cwd, st.Cwd = sub, sub
			res := mustRun(t, tl, env, command+" && echo moved")
			want := "moved\nShell cwd was reset to " + ws
			if text := tooltest.Text(res); text != want {
				t.Errorf("text = %q, want %q", text, want)
			}
			if st.Cwd != ws || res.Meta["cwd"] != ws {
				t.Errorf("State.Cwd = %q, meta cwd %v; want %q", st.Cwd, res.Meta["cwd"], ws)
			}
		})
	}
}

// cwdFileOfShell is bash that sets f to the path of the call's cwd file,
// taken from the EXIT trap.
const cwdFileOfShell = `t=$(trap -p EXIT); re="(/[^']*/cwd-[^']*)"; [[ $t =~ $re ]]; f=${BASH_REMATCH[1]}; `

// The command can find and write the cwd file; what it writes must pass
// the same checks as a real cd.
func TestForgedCwdFile(t *testing.T) {
	tl := newTool(t)
	const forge = cwdFileOfShell + `trap - EXIT; printf '%s\n' "$TARGET" > "$f"; `
	cases := []struct {
		name   string
		target func(ws, outside string) string
		moved  bool // to the target
		reset  bool
	}{
		{"inside directory is taken", func(ws, _ string) string { return ws + "/sub" }, true, false},
		{"symlink to outside is ignored", func(ws, _ string) string { return ws + "/link" }, false, false},
		{"unclean path is cleaned", func(ws, _ string) string { return ws + "//sub/../sub/" }, true, false},
		{"relative path is ignored", func(string, string) string { return "sub" }, false, false},
		{"missing directory is ignored", func(ws, _ string) string { return ws + "/nope" }, false, false},
		{"dangling symlink is ignored", func(ws, _ string) string { return ws + "/dangling" }, false, false},
		{"file is ignored", func(ws, _ string) string { return ws + "/file" }, false, false},
		{"outside is reset", func(_, outside string) string { return outside }, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, st, _ := tooltest.Env(t)
			ws := env.Cwd
			outside, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			os.Mkdir(filepath.Join(ws, "sub"), 0o755)
			os.WriteFile(filepath.Join(ws, "file"), nil, 0o644)
			os.Symlink(outside, filepath.Join(ws, "link"))
			os.Symlink(filepath.Join(outside, "gone"), filepath.Join(ws, "dangling"))
			target := c.target(ws, outside)
			res := mustRun(t, tl, env, "TARGET='"+target+"'; "+forge)
			want := ws
			if c.moved {
				want = filepath.Join(ws, "sub")
			}
			if st.Cwd != want || res.Meta["cwd"] != want {
				t.Errorf("State.Cwd = %q, meta cwd %v; want %q", st.Cwd, res.Meta["cwd"], want)
			}
			if got := strings.Contains(tooltest.Text(res), "Shell cwd was reset"); got != c.reset {
				t.Errorf("reset note = %v, want %v (text %q)", got, c.reset, tooltest.Text(res))
			}
		})
	}
}

// The per-call file lives in the tool's private directory, outside the
// workspace, and is gone after the call.
func TestCwdFileIsPrivate(t *testing.T) {
	tl := newTool(t)
	env, _, _ := tooltest.Env(t)
	text := tooltest.Text(mustRun(t, tl, env, cwdFileOfShell+`echo "$f"`))
	if !filepath.IsAbs(text) || env.Files.Contains(text) {
		t.Fatalf("cwd file %q is not outside the workspace", text)
	}
	stateDir := tl.(*bashTool).stateDir
	if filepath.Dir(text) != stateDir {
		t.Errorf("cwd file %q is not in the private directory %s", text, stateDir)
	}
	if fi, err := os.Stat(stateDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("private directory: %v, %v", fi.Mode(), err)
	}
	if left, _ := os.ReadDir(stateDir); len(left) != 0 {
		t.Errorf("files left in the private directory: %v", left)
	}
}

func TestMissingWorkingDirectory(t *testing.T) {
	tl := newTool(t)
	env, st, _ := tooltest.Env(t)
	gone := filepath.Join(env.Cwd, "gone")
	env.Cwd, st.Cwd = gone, gone
	_, err := run(t, tl, env, map[string]any{"command": "echo hi"})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindFailed || !strings.Contains(te.Msg, "Shell cwd was reset to "+filepath.Dir(gone)) {
		t.Fatalf("err = %v", err)
	}
	if st.Cwd != filepath.Dir(gone) {
		t.Errorf("State.Cwd = %q", st.Cwd)
	}
}

// The command must have started its processes before the timeout kills
// it: on a machine too loaded for that, the call is made again with twice
// the timeout.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	tl := newTool(t)
	var env *tool.Env
	for timeout := 1500 * time.Millisecond; ; timeout *= 2 {
		env, _, _ = tooltest.Env(t)
		_, err := run(t, tl, env, map[string]any{
			"command": "sleep 100 & echo $! > pid; (sleep 100; true) & echo $! > pid2; echo started; sleep 100",
			"timeout": float64(timeout / time.Millisecond),
		})
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tool.KindTimeout {
			t.Fatalf("err = %v, want a timeout error", err)
		}
		head := "Exit code 143\nCommand timed out after " + seconds(timeout)
		if te.Msg == head+"\nstarted" {
			break
		}
		if !strings.HasPrefix(te.Msg, head) || timeout > time.Minute {
			t.Fatalf("message = %q", te.Msg)
		}
	}
	waitDead(t, readPid(t, env.Cwd, "pid"))
	waitDead(t, readPid(t, env.Cwd, "pid2"))
}

func TestCancelKillsProcessGroup(t *testing.T) {
	tl := newTool(t)
	env, _, rec := tooltest.Env(t)
	inv := parse(t, tl, map[string]any{"command": "sleep 100 & echo $! > pid; echo ready; wait"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := inv.Run(ctx, env)
		done <- err
	}()
	waitFor(t, func() bool { out, _, _ := rec.Snapshot(); return out == "ready\n" })
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("Run did not return after cancel")
	}
	waitDead(t, readPid(t, env.Cwd, "pid"))
}

// A background process that keeps the output pipe open must not hold the
// call, and must not survive it.
func TestBackgroundProcessesDoNotHangAndDie(t *testing.T) {
	tl := newTool(t)
	cases := map[string]string{
		"background sleep":           "sleep 30 & echo $! > pid; echo done",
		"background subshell":        "(sleep 30; echo late) & echo $! > pid; echo done",
		"grandchild of a subshell":   "(sleep 30 & echo $! > p.tmp && mv p.tmp pid; wait) & until [ -e pid ]; do sleep 0.01; done; echo done",
		"nohup does not escape":      "nohup sleep 30 >/dev/null 2>&1 & echo $! > pid; echo done",
		"stdout closed, stderr held": "sleep 30 >/dev/null & echo $! > pid; echo done",
	}
	for name, command := range cases {
		t.Run(name, func(t *testing.T) {
			env, _, _ := tooltest.Env(t)
			res := mustRun(t, tl, env, command)
			if text := tooltest.Text(res); text != "done" || res.IsError {
				t.Errorf("text = %q, IsError %v", text, res.IsError)
			}
			waitDead(t, readPid(t, env.Cwd, "pid"))
		})
	}
}

func TestTruncation(t *testing.T) {
	tl := newTool(t)
	cases := []struct {
		name, command string
		head          string
		cut           int
	}{
		{"stdout", `head -c 100000 /dev/zero | tr '\0' a`, strings.Repeat("a", 30000), 70000},
		{"stdout and stderr", `head -c 20000 /dev/zero | tr '\0' a; head -c 20000 /dev/zero | tr '\0' b >&2`,
			strings.Repeat("a", 20000) + "\n" + strings.Repeat("b", 9999), 10001},
		{"stderr", `head -c 40000 /dev/zero | tr '\0' b >&2`, strings.Repeat("b", 30000), 10000},
		{"multi-byte characters", `for i in {1..40000}; do printf 'é'; done`, strings.Repeat("é", 30000), 10000},
		{"large output", `yes | head -c 50000000`, strings.Repeat("y\n", 15000), 50000000 - 30000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, _, _ := tooltest.Env(t)
			res := mustRun(t, tl, env, c.command)
			want := c.head + "\n\n... [output truncated: " + strconv.Itoa(c.cut) + " more characters]"
			if text := tooltest.Text(res); text != want {
				t.Errorf("text = %.80q... (%d bytes), want %.80q... (%d bytes) ending %q", text, len(text), want, len(want), want[len(want)-50:])
			}
			if res.Meta["truncated"] != true || res.IsError {
				t.Errorf("Meta = %v, IsError %v", res.Meta, res.IsError)
			}
		})
	}
	t.Run("exactly the limit", func(t *testing.T) {
		env, _, _ := tooltest.Env(t)
		res := mustRun(t, tl, env, `head -c 30000 /dev/zero | tr '\0' a`)
		if text := tooltest.Text(res); text != strings.Repeat("a", 30000) || res.Meta["truncated"] != false {
			t.Errorf("%d bytes, truncated %v", len(text), res.Meta["truncated"])
		}
	})
}

func TestProgressIsCapped(t *testing.T) {
	tl := newTool(t)
	env, _, rec := tooltest.Env(t)
	mustRun(t, tl, env, `yes | head -c 3000000; yes e | head -c 10 >&2`)
	out, errOut, msgs := rec.Snapshot()
	if len(out) != streamCap || errOut != "e\ne\ne\ne\ne\n" {
		t.Errorf("streamed %d bytes of stdout (want %d) and stderr %q", len(out), streamCap, errOut)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "stdout passed 1 MiB") {
		t.Errorf("messages = %q", msgs)
	}
}

// A command that prints without end is killed at the output cap; the call
// returns and holds no more than the result needs.
func TestEndlessOutputIsKilled(t *testing.T) {
	tl := newTool(t)
	env, _, _ := tooltest.Env(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := run(t, tl, env, map[string]any{"command": "yes", "timeout": 600000})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// 64 MiB went through; the call keeps the result's share of it (and
	// the test's recorder the first MiB of progress).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("the call allocated %d MiB", alloc>>20)
	}
	text := tooltest.Text(res)
	if !res.IsError || res.Kind != tool.KindFailed || res.Meta["truncated"] != true || res.Meta["killed_by"] != "output_cap" ||
		!strings.HasPrefix(text, "The command was killed because its output passed 64 MiB.\n"+strings.Repeat("y\n", 15000)+"\n\n... [output truncated: ") {
		t.Errorf("result: IsError %v, Kind %v, Meta %v, text ending %q", res.IsError, res.Kind, res.Meta, text[max(0, len(text)-200):])
	}
}

// With a short timeout, endless output ends in a timeout or at the output
// cap, whichever comes first; either way the call returns a bounded text.
func TestEndlessOutputTimesOut(t *testing.T) {
	tl := newTool(t)
	env, _, _ := tooltest.Env(t)
	res, err := run(t, tl, env, map[string]any{"command": "yes", "timeout": 1000})
	var text string
	var te *tool.Error
	switch {
	case errors.As(err, &te) && te.Kind == tool.KindTimeout:
		text = te.Msg
		if !strings.HasPrefix(text, "Exit code 143\nCommand timed out after 1s\n") {
			t.Errorf("message starts %.100q", text)
		}
		text = strings.TrimPrefix(text, "Exit code 143\nCommand timed out after 1s\n")
	case err == nil && res.IsError:
		text = strings.TrimPrefix(tooltest.Text(res), "The command was killed because its output passed 64 MiB.\n")
	default:
		t.Fatalf("result %v, err %v", res, err)
	}
	if !strings.HasPrefix(text, strings.Repeat("y\n", 15000)+"\n\n... [output truncated: ") || len(text) > 30200 {
		t.Errorf("text of %d bytes: %.100q", len(text), text[min(len(text), 30000):])
	}
}

func TestProgressStreamsWhileRunning(t *testing.T) {
	tl := newTool(t)
	env, _, rec := tooltest.Env(t)
	inv := parse(t, tl, map[string]any{
		"command": "echo first; echo warn >&2; while [ ! -e go ]; do sleep 0.01; done; echo second",
	})
	type outcome struct {
		res *tool.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		res, err := inv.Run(ctx, env)
		done <- outcome{res, err}
	}()
	// The command cannot end before the file "go" exists, so output seen
	// now was streamed while it ran.
	waitFor(t, func() bool { out, errOut, _ := rec.Snapshot(); return out == "first\n" && errOut == "warn\n" })
	select {
	case <-done:
		t.Fatal("the command ended before it was released")
	default:
	}
	if err := os.WriteFile(filepath.Join(env.Cwd, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil || tooltest.Text(o.res) != "first\nsecond\nwarn" {
		t.Fatalf("result %q, %v", tooltest.Text(o.res), o.err)
	}
	if out, _, _ := rec.Snapshot(); out != "first\nsecond\n" {
		t.Errorf("streamed stdout = %q", out)
	}
}

func TestConcurrentCalls(t *testing.T) {
	tl := newTool(t)
	errs := make(chan error, 8)
	for i := range 8 {
		env, _, _ := tooltest.Env(t)
		go func() {
			res, err := tooltest.Run(t, tl, env, map[string]any{"command": "echo " + strconv.Itoa(i)})
			if err == nil && tooltest.Text(res) != strconv.Itoa(i) {
				err = errors.New("call " + strconv.Itoa(i) + " got " + tooltest.Text(res))
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestNoBash(t *testing.T) {
	tl := New(Options{BashPath: "/nonexistent/bash", TempDir: t.TempDir()})
	env, _, _ := tooltest.Env(t)
	_, err := run(t, tl, env, map[string]any{"command": "true"})
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.KindUnavailable {
		t.Errorf("err = %v, want unavailable", err)
	}
}

// readPid reads a pid the command wrote to a file in the workspace.
func readPid(t *testing.T, dir, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("pid file %s: %q", name, b)
	}
	return pid
}

// waitDead waits until pid is gone. A killed process whose parent also
// died stays a zombie until init reaps it, and a container's init may
// never do so; a zombie runs no code, so it counts as dead.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, func() bool {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return errors.Is(err, os.ErrNotExist)
		}
		_, rest, _ := strings.Cut(string(stat[strings.LastIndexByte(string(stat), ')')+1:]), " ")
		return strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X")
	})
}

// waitFor polls cond until it holds; hangGuard only stops a hung test.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A shell killed by a signal says which in its metadata too, and a shell
// past its CPU time limit is said to be.
func TestKilledBySignalMeta(t *testing.T) {
	tl := newTool(t)
	env, _, _ := tooltest.Env(t)
	res := mustRun(t, tl, env, "ulimit -S -t 1; while :; do :; done")
	text := tooltest.Text(res)
	if text != "Command was killed by signal 24 (SIGXCPU): the command used up its CPU time limit" ||
		res.Meta["killed_by"] != "signal" || res.Meta["signal"] != "SIGXCPU" || res.Meta["exit_code"] != 128+24 {
		t.Errorf("text %q, meta %v", text, res.Meta)
	}
	res = mustRun(t, tl, env, "kill -TERM $$")
	if res.Meta["killed_by"] != "signal" || res.Meta["signal"] != "SIGTERM" || tooltest.Text(res) != "Command was killed by signal 15 (SIGTERM)" {
		t.Errorf("text %q, meta %v", tooltest.Text(res), res.Meta)
	}
}

// A process of the command that a signal killed (bash reports 128+N) is
// said to be killed, and by which signal.
func TestProcessKilledBySignal(t *testing.T) {
	tl := newTool(t)
	cases := []struct{ command, head string }{
		{"sh -c 'kill -KILL $$'; exit $?", "Exit code 137 (128+9: a process of the command was killed by signal 9 (SIGKILL): " + killCause + ")\n"},
		{"ulimit -f 1; head -c 5000 /dev/zero > big; exit $?", "Exit code 153 (128+25: a process of the command was killed by signal 25 (SIGXFSZ): the command wrote past its file size limit)\n"},
	}
	for _, c := range cases {
		env, _, _ := tooltest.Env(t)
		res := mustRun(t, tl, env, c.command)
		if text := tooltest.Text(res); !strings.HasPrefix(text, c.head) || !res.IsError {
			t.Errorf("%s: text %q", c.command, text)
		}
	}
}

// Every command reads /dev/null; the descriptor is shared by all, so a
// command that closes or redirects its own leaves the next one's alone.
func TestStdinIsDevNullForEveryCommand(t *testing.T) {
	tl := newTool(t)
	env, _, _ := tooltest.Env(t)
	if res := mustRun(t, tl, env, "exec 0<&-; echo closed"); tooltest.Text(res) != "closed" {
		t.Fatalf("closing stdin: %q", tooltest.Text(res))
	}
	for range 2 {
		res := mustRun(t, tl, env, "readlink /proc/self/fd/0; cat; echo done")
		if got := tooltest.Text(res); got != "/dev/null\ndone" {
			t.Fatalf("stdin: %q, want /dev/null and nothing to read", got)
		}
	}
}
