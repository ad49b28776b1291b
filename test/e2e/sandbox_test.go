package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// passThrough lets other users pass through dir and the directories the
// test framework made above it (0700 by default), as they can through
// /tmp: commands run as the sandbox user must reach their workspace.
func passThrough(t *testing.T, dir string) {
	t.Helper()
	for d := dir; d != os.TempDir() && d != filepath.Dir(d); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
			t.Fatal(err)
		}
	}
}

// callResult is the result event of one call of an Execute stream.
type callResult struct {
	Text    string
	IsError bool
	Meta    map[string]any
}

// execute runs one call through grpcurl and returns its result.
func execute(t *testing.T, ctx context.Context, addr, sid, id, name string, input map[string]any) callResult {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"session_id": sid, "calls": []any{map[string]any{"tool_use_id": id, "name": name, "input": input}}})
	out, err := sh(t, ctx, `grpcurl -plaintext -d @ `+addr+` toold.v1.ToolService/Execute <<'EOF'
`+string(req)+`
EOF`)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var ev struct {
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text struct{ Text string } `json:"text"`
				} `json:"content"`
				Metadata map[string]any `json:"metadata"`
			} `json:"result"`
		}
		if err := dec.Decode(&ev); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if ev.Result != nil {
			var text bytes.Buffer
			for _, c := range ev.Result.Content {
				text.WriteString(c.Text.Text)
			}
			return callResult{Text: text.String(), IsError: ev.Result.IsError, Meta: ev.Result.Metadata}
		}
	}
	t.Fatalf("%s: no result in\n%s", name, out)
	return callResult{}
}

// serverInfo is GetServerInfo's answer as grpcurl prints it.
func serverInfo(t *testing.T, ctx context.Context, addr string) (string, map[string]any) {
	t.Helper()
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{}' `+addr+` toold.v1.ServerService/GetServerInfo`)
	if err != nil {
		t.Fatalf("GetServerInfo: %v\n%s", err, out)
	}
	var info struct {
		Sandbox map[string]any `json:"sandbox"`
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("GetServerInfo: %v\n%s", err, out)
	}
	return out, info.Sandbox
}

// With the sandbox on (the default), GetServerInfo says what confines
// commands, a command cannot write outside the session's directories even
// where file permissions would let it, and files the file tools make stay
// writable for commands.
func TestSandboxConfinesBash(t *testing.T) {
	d := startToold(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, sb := serverInfo(t, ctx, d.addr)
	mustContain(t, out, `"version": "dev"`, `"store": "memory"`, `"auth": "none"`, `"mode": "best-effort"`)
	if os.Geteuid() == 0 && sb["userSwitch"] != true {
		t.Errorf("toold runs as root but commands do not switch user: %s", out)
	}
	sid := createSession(t, ctx, d.addr)

	// Write, then Bash appends to the file; Bash makes a file, Edit
	// changes it, Bash appends again.
	if r := execute(t, ctx, d.addr, sid, "w1", "Write", map[string]any{"file_path": "notes/a.txt", "content": "from Write\n"}); r.IsError {
		t.Fatalf("Write: %s", r.Text)
	}
	r := execute(t, ctx, d.addr, sid, "b1", "Bash", map[string]any{"command": "echo from Bash >> notes/a.txt && cat notes/a.txt && echo one > b.txt"})
	if r.IsError || r.Text != "from Write\nfrom Bash" {
		t.Fatalf("Bash could not append to the file Write made: %q", r.Text)
	}
	execute(t, ctx, d.addr, sid, "r1", "Read", map[string]any{"file_path": "b.txt"})
	if r := execute(t, ctx, d.addr, sid, "e1", "Edit", map[string]any{"file_path": "b.txt", "old_string": "one", "new_string": "two"}); r.IsError {
		t.Fatalf("Edit: %s", r.Text)
	}
	if r := execute(t, ctx, d.addr, sid, "b2", "Bash", map[string]any{"command": "echo three >> b.txt && cat b.txt"}); r.IsError || r.Text != "two\nthree" {
		t.Fatalf("Bash could not append to the file Edit rewrote: %q", r.Text)
	}

	if sb["landlock"] != true {
		t.Skipf("no Landlock on this machine; writes outside the workspace are not confined: %s", out)
	}
	// Open to everyone: only the sandbox can keep the command out.
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.Mkdir(outside, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(outside, 0o777)
	passThrough(t, outside)
	target := filepath.Join(outside, "escaped.txt")
	r = execute(t, ctx, d.addr, sid, "b3", "Bash", map[string]any{"command": "echo escaped > " + target})
	if !r.IsError || !strings.Contains(r.Text, "Permission denied") {
		t.Errorf("a write outside the workspace was not refused: %+v", r)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists: the command wrote outside its workspace", target)
	}
}

// A session's variables reach its commands; a bad name is refused.
func TestSessionEnvThroughGrpcurl(t *testing.T) {
	d := startToold(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"mode": "PERMISSION_MODE_BYPASS_PERMISSIONS", "env": {"DEPLOY_ENV": "staging"}}' `+d.addr+` toold.v1.SessionService/CreateSession | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'`)
	if err != nil {
		t.Fatal(err, out)
	}
	sid := strings.TrimSpace(out)
	if r := execute(t, ctx, d.addr, sid, "b1", "Bash", map[string]any{"command": "echo env=$DEPLOY_ENV"}); r.Text != "env=staging" {
		t.Errorf("Bash saw %q", r.Text)
	}
	out, err = sh(t, ctx, `grpcurl -plaintext -d '{"env": {"BAD-NAME": "x"}}' `+d.addr+` toold.v1.SessionService/CreateSession 2>&1 || true`)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out, "InvalidArgument", "BAD-NAME")
}

// --sandbox required refuses to start, with exit status 2, on a machine
// that lacks a protection (this one's best-effort status lists it).
func TestSandboxRequiredRefusesToStart(t *testing.T) {
	d := startToold(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, sb := serverInfo(t, ctx, d.addr)
	missing, _ := sb["missing"].([]any)
	if len(missing) == 0 {
		t.Skip("this machine offers every protection")
	}
	cmd := exec.CommandContext(ctx, binary(t), "--listen", freeAddr(t), "--workspace-root", d.root, "--sandbox", "required")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "sandbox required") {
		t.Fatalf("toold --sandbox required: %v\n%s", err, out)
	}
}

// A toold that is not root (uid 10001, as with runAsUser in a pod) still
// keeps commands from writing outside the session, from reading its
// environment and from leaving processes behind, and bounds their
// processes with RLIMIT_NPROC.
func TestSandboxAsNonRootToold(t *testing.T) {
	const uid = 10001
	if os.Geteuid() != 0 {
		t.Logf("the tests run as uid %d: every other test here already drives a non-root toold", os.Geteuid())
		return
	}
	d := startTooldAs(t, uid, "--sandbox-rlimit-nproc", "200")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, sb := serverInfo(t, ctx, d.addr)
	if sb["userSwitch"] == true || !strings.Contains(out, `"user": "uid 10001 (toold's own)"`) {
		t.Fatalf("toold as uid %d reports: %s", uid, out)
	}
	sid := createSession(t, ctx, d.addr)
	if r := execute(t, ctx, d.addr, sid, "id", "Bash", map[string]any{"command": "id -u"}); r.Text != "10001" {
		t.Fatalf("commands run as %q", r.Text)
	}

	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.Mkdir(outside, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(outside, 0o777)
	passThrough(t, outside)
	r := execute(t, ctx, d.addr, sid, "w", "Bash", map[string]any{"command": "echo escaped > " + outside + "/x"})
	if sb["landlock"] != true {
		t.Logf("MISSING on this machine: Landlock (%v); a non-root toold cannot keep its commands out of directories its user may write", sb["missing"])
	} else if !r.IsError || !strings.Contains(r.Text, "Permission denied") {
		t.Errorf("a write outside the workspace was not refused: %+v", r)
	}

	// Same user as toold: only Landlock's ptrace rule stands between the
	// command and toold's /proc/<pid>/environ.
	r = execute(t, ctx, d.addr, sid, "env", "Bash", map[string]any{"command": "tr '\\0' '\\n' < /proc/" + strconv.Itoa(d.cmd.Process.Pid) + "/environ; env"})
	if strings.Contains(r.Text, "do-not-leak") {
		t.Errorf("the command read toold's environment: %s", r.Text)
	}

	r = execute(t, ctx, d.addr, sid, "orphans", "Bash", map[string]any{"command": "setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!; ( sleep 1001 </dev/null >/dev/null 2>&1 & echo $! ); sleep 0.2"})
	pids := strings.Fields(r.Text)
	if len(pids) != 2 {
		t.Fatalf("orphans: %q", r.Text)
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		if processAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d (setsid or double fork) outlived the call", pid)
		}
	}

	// The command forks until the limit refuses a fork, and says so:
	// it ends on that condition, not on a timeout (bash would retry a
	// refused fork for a while, so a shell loop would only end on time).
	bomb := `/usr/bin/python3 -c '
import os, time
n = 0
while n < 1000:
    try:
        pid = os.fork()
    except OSError as e:
        print("REFUSED", n, e.errno)
        break
    if pid == 0:
        time.sleep(1000)
        os._exit(0)
    n += 1
else:
    print("ALL STARTED")
'`
	r = execute(t, ctx, d.addr, sid, "bomb", "Bash", map[string]any{"command": bomb, "timeout": 600000})
	if strings.Contains(r.Text, "ALL STARTED") || !strings.Contains(r.Text, "REFUSED") || !strings.HasSuffix(strings.TrimSpace(r.Text), " 11") {
		t.Errorf("the process limit did not refuse a fork (EAGAIN): %s", r.Text)
	}
	if r := execute(t, ctx, d.addr, sid, "after", "Bash", map[string]any{"command": "echo still here"}); r.Text != "still here" {
		t.Errorf("toold could not run a command after the fork bomb: %+v", r)
	}
}

// processAlive reports whether pid is a process that is not a zombie.
func processAlive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i > 0 && i+2 < len(data) && data[i+2] != 'Z'
}
