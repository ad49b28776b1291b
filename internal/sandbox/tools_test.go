package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/bash"
	"github.com/toold/toold/internal/tools/bash/bashbench"
	"github.com/toold/toold/internal/tools/shells"
)

// newSandboxedBash is the Bash tool with background shells, both through a
// launcher whose helper is this test binary (see TestMain).
func newSandboxedBash(t *testing.T) (tool.Tool, *shells.Registry, *sandbox.Launcher, *tool.Env) {
	t.Helper()
	l, err := sandbox.New(sandbox.Options{
		Mode:      sandbox.ModeBestEffort,
		Network:   true,
		Limits:    sandbox.DefaultLimits(),
		HelperEnv: []string{"TOOLD_SANDBOX_TEST_HELPER=1", "GORACE=atexit_sleep_ms=0"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	reg, err := shells.New(shells.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	env, _, _ := tooltest.Env(t)
	// t.TempDir makes 0700 directories, which the sandbox user could not
	// pass on its way to the workspace.
	for d := env.Files.Primary(); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	return bash.New(bash.Options{Shells: reg, Sandbox: l}), reg, l, env
}

func TestBashToolThroughTheSandbox(t *testing.T) {
	tl, _, l, env := newSandboxedBash(t)
	ws := env.Files.Primary()
	res, err := tooltest.Run(t, tl, env, map[string]any{"command": "mkdir sub && cd sub && echo hi > f && id -u"})
	if err != nil || res.IsError {
		t.Fatalf("Bash call failed: %v %q", err, tooltest.Text(res))
	}
	if st := l.Status(); st.UserSwitch && !strings.Contains(tooltest.Text(res), "65534") && st.User == "nobody" {
		t.Errorf("the command did not run as nobody: %q", tooltest.Text(res))
	}
	// The cd is carried over through the cwd file, which the confined
	// shell wrote in the session's temporary directory.
	if got, _ := res.Meta["cwd"].(string); got != filepath.Join(ws, "sub") {
		t.Errorf("cwd after cd: %q, want %s", got, filepath.Join(ws, "sub"))
	}
	if data, err := os.ReadFile(filepath.Join(ws, "sub", "f")); err != nil || string(data) != "hi\n" {
		t.Errorf("file written by the command: %q %v", data, err)
	}
	if l.Status().Landlock {
		res, _ = tooltest.Run(t, tl, env, map[string]any{"command": "echo x > /tmp/escape-from-bash-test"})
		if res == nil || !res.IsError || !strings.Contains(tooltest.Text(res), "Permission denied") {
			t.Errorf("a write to /tmp succeeded: %v", res)
		}
		os.Remove("/tmp/escape-from-bash-test")
	}
}

func TestBackgroundShellKillEndsEscapedProcesses(t *testing.T) {
	tl, reg, _, env := newSandboxedBash(t)
	pidFile := filepath.Join(env.Files.Primary(), "pid")
	res, err := tooltest.Run(t, tl, env, map[string]any{
		"command":           "setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > " + pidFile + "; sleep 1000",
		"run_in_background": true,
	})
	if err != nil || res.IsError {
		t.Fatalf("background start failed: %v %v", err, res)
	}
	id, _ := res.Meta["task_id"].(string)
	var pid string
	for deadline := time.Now().Add(10 * time.Second); pid == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(pidFile)
		pid = strings.TrimSpace(string(data))
	}
	if pid == "" {
		t.Fatal("the background shell never wrote its pid")
	}
	if _, err := os.Stat("/proc/" + pid); err != nil {
		t.Fatalf("the setsid'd sleep is not running: %v", err)
	}
	if _, err := reg.Kill(context.Background(), env.SessionID, id); err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err == nil && !strings.Contains(string(stat), ") Z ") {
		t.Errorf("the setsid'd sleep %s outlived KillShell: %s", pid, stat)
	}
}

// A syntax error on the command's first line makes bash echo that line;
// the echo shows the model's command, not the text the sandbox and the
// Bash tool put before it.
func TestSyntaxErrorEchoesOnlyTheCommand(t *testing.T) {
	tl, _, _, env := newSandboxedBash(t)
	res, err := tooltest.Run(t, tl, env, map[string]any{"command": "cd . && echo ("})
	if err != nil {
		t.Fatal(err)
	}
	text := tooltest.Text(res)
	if !res.IsError || !strings.Contains(text, "syntax error") || !strings.Contains(text, "`cd . && echo ('") {
		t.Errorf("syntax error result: %q", text)
	}
	if strings.Contains(text, "ulimit") || strings.Contains(text, "trap") {
		t.Errorf("the echo shows toold's own text: %q", text)
	}
}

// The same holds for a background shell's output.
func TestBackgroundSyntaxErrorEchoesOnlyTheCommand(t *testing.T) {
	tl, reg, _, env := newSandboxedBash(t)
	res, err := tooltest.Run(t, tl, env, map[string]any{"command": "echo (", "run_in_background": true})
	if err != nil || res.IsError {
		t.Fatalf("starting the shell: %v %q", err, tooltest.Text(res))
	}
	id, _ := res.Meta["task_id"].(string)
	got, err := reg.Read(context.Background(), env.SessionID, id, shells.ReadOptions{Wait: 10 * time.Second, Until: shells.UntilExit})
	if err != nil {
		t.Fatal(err)
	}
	out := got.Text
	if !strings.Contains(out, "`echo ('") || strings.Contains(out, "ulimit") {
		t.Errorf("background shell output: %q", out)
	}
}

// BenchmarkSandboxedBashTrueVsBare is BenchmarkBashTrueVsBare of the Bash
// tool through the sandbox: cgroup, where toold confines the command
// itself into a cgroup of its own; helper, where there is none and a warm
// helper runs it.
func BenchmarkSandboxedBashTrueVsBare(b *testing.B) {
	for _, c := range []struct{ name, cgroupDir string }{{"cgroup", ""}, {"helper", "-"}} {
		b.Run(c.name, func(b *testing.B) {
			l, err := sandbox.New(sandbox.Options{
				Mode:      sandbox.ModeBestEffort,
				Network:   true,
				Limits:    sandbox.DefaultLimits(),
				CgroupDir: c.cgroupDir,
				HelperEnv: []string{"TOOLD_SANDBOX_TEST_HELPER=1", "GORACE=atexit_sleep_ms=0"},
			}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { l.Close() })
			if c.cgroupDir == "" && !l.Status().Cgroup {
				b.Skipf("no per-command cgroups on this machine: %v", l.Status().Missing)
			}
			env, _, _ := tooltest.Env(b)
			for d := env.Files.Primary(); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
				os.Chmod(d, 0o755)
			}
			bashbench.Run(b, bash.New(bash.Options{Sandbox: l, BashPath: "/bin/bash"}), env, "/bin/bash")
		})
	}
}
