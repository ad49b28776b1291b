package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func createSession(t *testing.T, ctx context.Context, addr string) string {
	t.Helper()
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"mode": "PERMISSION_MODE_BYPASS_PERMISSIONS"}' `+addr+` toold.v1.SessionService/CreateSession | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'`)
	if err != nil || len(strings.TrimSpace(out)) != 26 {
		t.Fatalf("CreateSession: %v %q", err, out)
	}
	return strings.TrimSpace(out)
}

func TestBashDoesNotSeeServerEnvironment(t *testing.T) {
	d := startToold(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "t1", "name": "Bash", "input": {"command": "env; echo marker-$TOOLD_TEST_SECRET-end"}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "marker--end")
	if strings.Contains(out, "do-not-leak") {
		t.Fatalf("the server's environment reached the command:\n%s", out)
	}
}

// TestShutdownKillsRunningCommands: SIGTERM with a short shutdown timeout
// ends toold, and the process tree of a running Bash call dies with it.
func TestShutdownKillsRunningCommands(t *testing.T) {
	d := startToold(t, "--shutdown-timeout", "1s")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)
	pidFile := filepath.Join(d.root, sid, "child.pid")
	go sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "t1", "name": "Bash", "input": {"command": "sleep 300 & echo $! > child.pid; wait"}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
	var pid int
	for pid == 0 {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		select {
		case <-ctx.Done():
			t.Fatal("the command did not start")
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.done:
	case <-ctx.Done():
		t.Fatal("toold did not exit after SIGTERM")
	}
	waitGone(t, ctx, pid, "a process of the call outlived toold")
	mustContain(t, d.logs.String(), "shutting down")
}

func TestBadConfigurationExitsWithStatus2(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(bad, []byte(`{"permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(npm test"]}}`), 0o644)
	notJSON := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(notJSON, []byte(`{"permissions": `), 0o644)
	for _, args := range [][]string{
		// A rule that does not parse is skipped with a warning, as Claude
		// Code skips it, unless --strict-rules asks for the refusal.
		{"--settings", bad, "--strict-rules"},
		{"--settings", notJSON},
		{"--listen", "nowhere"},
		{"--log-format", "xml"},
	} {
		// A toold that starts instead of refusing would run forever.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary(t), append(args, "--listen", "127.0.0.1:0")...)
		if args[0] == "--listen" {
			cmd = exec.CommandContext(ctx, binary(t), args...)
		}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%v: err = %v, output %s", args, err, out)
		}
		if args[1] == bad && !strings.Contains(string(out), `"Bash(npm test"`) {
			t.Errorf("the message does not name the bad rule: %s", out)
		}
	}
}
