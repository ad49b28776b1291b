package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// helperEnv makes the test binary play toold's helper subcommand.
const helperEnv = "TOOLD_SANDBOX_TEST_HELPER"

// testHelperEnv is the helper's environment in tests. A binary built with
// the race detector waits a second before it exits, for reports of other
// goroutines; the helper has none worth waiting for.
var testHelperEnv = []string{helperEnv + "=1", "GORACE=atexit_sleep_ms=0"}

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" && len(os.Args) > 1 && os.Args[1] == HelperCommand {
		os.Exit(HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// fixture is a launcher and one session's workspace.
type fixture struct {
	l         *Launcher
	workspace string
	outside   string
	bash      string
}

// newFixture makes a launcher with opts (helper and state directory filled
// in) and a workspace that the sandbox user can reach.
func newFixture(t testing.TB, opts Options) *fixture {
	t.Helper()
	root, err := os.MkdirTemp("", "sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	// MkdirTemp makes 0700 directories; the sandbox user must pass.
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fixture{workspace: filepath.Join(root, "workspace"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{f.workspace, f.outside} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
		// World-writable, so that only Landlock stands in the way.
		os.Chmod(d, 0o777)
	}
	f.bash, err = exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	opts.HelperEnv = append(opts.HelperEnv, testHelperEnv...)
	if opts.StateDir == "" {
		opts.StateDir = root
	}
	if opts.Mode == "" {
		opts.Mode = ModeBestEffort
	}
	f.l, err = New(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.l.Close() })
	return f
}

// result is what a command did.
type result struct {
	stdout, stderr string
	status         syscall.WaitStatus
}

func (r result) String() string {
	return "status " + describe(r.status) + "\nstdout: " + r.stdout + "\nstderr: " + r.stderr
}

func describe(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return "exit " + strconv.Itoa(ws.ExitStatus())
}

// run runs script through the launcher in the fixture's session.
func (f *fixture) run(t testing.TB, ctx context.Context, script string, env ...string) result {
	t.Helper()
	c, err := f.command(ctx, script, env...)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	c.Cmd.Stdout, c.Cmd.Stderr = &out, &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	err = c.Wait()
	ws, ok := c.Status()
	if !ok {
		t.Fatalf("wait: %v", err)
	}
	return result{stdout: out.String(), stderr: errb.String(), status: ws}
}

func (f *fixture) command(ctx context.Context, script string, env ...string) (*Cmd, error) {
	return f.l.Command(ctx, Request{
		SessionID: "s1",
		Dirs:      []string{f.workspace},
		Dir:       f.workspace,
		Env:       append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, env...),
		Path:      f.bash,
		Args:      []string{"bash", "-c", script},
	})
}

// modes are the two ways of holding a command's processes: each test that
// is about them runs in both where this machine allows.
func modes(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{"subreaper": "-"}
	f := newFixture(t, Options{})
	if st := f.l.Status(); st.Cgroup {
		m["cgroup"] = ""
	} else {
		t.Logf("MISSING on this machine: per-command cgroup v2 (%s); only the subreaper fallback is tested", strings.Join(st.Missing, "; "))
	}
	return m
}
