package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangGuard stops a hung test; no assertion depends on it.
const hangGuard = 60 * time.Second

// fixture is a workspace and a directory of hook scripts.
type fixture struct {
	t         *testing.T
	workspace string
	scripts   string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := os.Stat("/usr/bin/jq"); err != nil {
		t.Skip("jq is not installed")
	}
	base := t.TempDir()
	f := &fixture{t: t, workspace: filepath.Join(base, "ws"), scripts: filepath.Join(base, "scripts")}
	for _, d := range []string{f.workspace, f.scripts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// script writes an executable bash script and returns its path.
func (f *fixture) script(name, body string) string {
	f.t.Helper()
	p := filepath.Join(f.scripts, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// path is a file in the scripts directory, for hooks to write to.
func (f *fixture) path(name string) string { return filepath.Join(f.scripts, name) }

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.path(name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// runner parses settings JSON and builds a runner on it.
func (f *fixture) runner(settings string, mod ...func(*Options)) *Runner {
	f.t.Helper()
	cfg, err := ParseSettings([]byte(settings), "test settings")
	if err != nil {
		f.t.Fatal(err)
	}
	opts := Options{Settings: cfg, Environ: []string{"PATH=" + os.Getenv("PATH"), "OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4317", "HOME=" + os.Getenv("HOME")}}
	for _, m := range mod {
		m(&opts)
	}
	r, err := New(opts)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { r.Close() })
	return r
}

func (f *fixture) session() Session {
	return Session{ID: "sess-1", Workspace: f.workspace, PermissionMode: "default", TranscriptPath: "/tmp/transcript.jsonl"}
}

func (f *fixture) bash(command string) ToolEvent {
	in, _ := json.Marshal(map[string]any{"command": command, "description": "run it"})
	return ToolEvent{Session: f.session(), ToolName: "Bash", ToolInput: in, ToolUseID: "toolu_01"}
}

// settings builds a settings document with one group for ev.
func settings(ev Event, matcher string, hooks ...string) string {
	return fmt.Sprintf(`{"hooks":{%q:[{"matcher":%q,"hooks":[%s]}]}}`, ev, matcher, strings.Join(hooks, ","))
}

// command is a command handler; extra is more JSON fields (",\"timeout\":1").
func command(cmd string, extra ...string) string {
	b, _ := json.Marshal(cmd)
	return `{"type":"command","command":` + string(b) + strings.Join(extra, "") + `}`
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return c
}

func pre(t *testing.T, r *Runner, te ToolEvent) PreOutcome {
	t.Helper()
	o, err := r.PreToolUse(ctx(t), te)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// waitDead waits until pid is gone. A killed process whose parent died
// stays a zombie until init reaps it, which a container's init may never
// do; a zombie runs no code, so it counts as dead.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil && errors.Is(err, os.ErrNotExist) {
			return
		}
		if err == nil {
			s := string(stat)
			_, rest, _ := strings.Cut(s[strings.LastIndexByte(s, ')')+1:], " ")
			if strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPid(t *testing.T, f *fixture, name string) int {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		b, err := os.ReadFile(f.path(name))
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func writeFile(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return c, cancel
}
