package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitFile waits until path exists, with a line in it.
func waitFile(t *testing.T, ctx context.Context, path string) string {
	t.Helper()
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s did not appear", path)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitNotServing polls readiness on addr until it reports NOT_SERVING.
func waitNotServing(t *testing.T, ctx context.Context, addr string) {
	t.Helper()
	for {
		out, _ := sh(t, ctx, `grpcurl -plaintext -max-time 2 `+addr+` grpc.health.v1.Health/Check`)
		if strings.Contains(out, "NOT_SERVING") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("readiness never went NOT_SERVING; last answer: %s", out)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestDrainLetsARunningCallFinish: on SIGTERM readiness goes NOT_SERVING
// at once, and a call that was running when the signal came finishes and
// reaches its client within the drain timeout; then toold exits cleanly.
func TestDrainLetsARunningCallFinish(t *testing.T) {
	d := startToold(t, "--drain-timeout", "2m", "--drain-delay", "5s")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)
	dir := filepath.Join(d.root, sid)
	// The command runs until the test lets it go, after the drain began.
	type result struct {
		out string
		err error
	}
	got := make(chan result, 1)
	go func() {
		out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "t1", "name": "Bash", "input": {"command": "echo started > started; while [ ! -f release ]; do sleep 0.05; done; echo finished-during-drain"}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
		got <- result{out, err}
	}()
	waitFile(t, ctx, filepath.Join(dir, "started"))
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitNotServing(t, ctx, d.addr)
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err != nil {
		t.Fatalf("the running call did not finish: %v\n%s", r.err, r.out)
	}
	mustContain(t, r.out, "finished-during-drain")
	select {
	case <-d.done:
	case <-ctx.Done():
		t.Fatal("toold did not exit once the call had finished")
	}
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d after a clean drain", code)
	}
	if strings.Contains(d.logs.String(), "shutdown deadline passed") {
		t.Error("the call was killed although it finished within the drain timeout")
	}
}

// TestDrainKillsProcessGroupsAfterTheTimeout: a call still running when
// the drain timeout ends is killed with every process it started.
func TestDrainKillsProcessGroupsAfterTheTimeout(t *testing.T) {
	d := startToold(t, "--drain-timeout", "1s", "--drain-delay", "5s")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)
	go sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "t1", "name": "Bash", "input": {"command": "sleep 300 & echo $! > child.pid; wait"}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
	pid, _ := strconv.Atoi(waitFile(t, ctx, filepath.Join(d.root, sid, "child.pid")))
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitNotServing(t, ctx, d.addr)
	select {
	case <-d.done:
	case <-ctx.Done():
		t.Fatal("toold did not exit after the drain timeout")
	}
	waitGone(t, ctx, pid, "a process of the call outlived the drain")
	mustContain(t, d.logs.String(), "shutdown deadline passed")
}

// TestDrainEndsAKilledCallWithItsResult: a call still running when the
// drain timeout ends is stopped, and its stream carries its result, of
// kind CANCELLED and saying why, before it closes normally: the client
// sees a result, not a transport error. The stream's keepalives came
// before, none after.
func TestDrainEndsAKilledCallWithItsResult(t *testing.T) {
	d := startToold(t, "--drain-timeout", "1s", "--stream-keepalive", "100ms")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid := createSession(t, ctx, d.addr)
	type result struct {
		out string
		err error
	}
	got := make(chan result, 1)
	go func() {
		out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "t1", "name": "Bash", "input": {"command": "echo started > started; sleep 300"}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
		got <- result{out, err}
	}()
	waitFile(t, ctx, filepath.Join(d.root, sid, "started"))
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err != nil {
		t.Fatalf("the stream ended with an error instead of the call's result: %v\n%s", r.err, r.out)
	}
	mustContain(t, r.out, `"errorKind": "ERROR_KIND_CANCELLED"`)
	mustContain(t, r.out, "The call was cancelled before it finished: toold is shutting down.")
	mustContain(t, r.out, `"keepalive": {}`)
	if i, j := strings.LastIndex(r.out, `"keepalive"`), strings.Index(r.out, `"result"`); i > j {
		t.Errorf("a keepalive followed the result:\n%s", r.out)
	}
	select {
	case <-d.done:
	case <-ctx.Done():
		t.Fatal("toold did not exit")
	}
}
