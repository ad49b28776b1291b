package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/toold/toold/internal/tooldtest"
)

type ctl struct {
	t    *testing.T
	bin  string
	addr string
}

func newCtl(t *testing.T, args ...string) *ctl {
	t.Helper()
	d := tooldtest.Start(t, args...)
	return &ctl{t: t, bin: tooldtest.Build(t, "./cmd/toolctl"), addr: d.Addr}
}

// run runs toolctl with TOOLD_ADDR set and returns stdout, stderr and the
// exit code.
func (c *ctl) run(args ...string) (string, string, int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), "TOOLD_ADDR="+c.addr)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func (c *ctl) must(args ...string) string {
	c.t.Helper()
	out, errs, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("toolctl %q: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

func TestCommandsAndExitCodes(t *testing.T) {
	c := newCtl(t)
	sid := strings.TrimSpace(c.must("session", "create", "--mode", "bypassPermissions"))

	out, errs, code := c.run("exec", sid, "Bash", `{"command":"echo live-out; echo live-err >&2"}`)
	if code != 0 || !strings.Contains(out, "live-out") || !strings.Contains(errs, "live-err") || !strings.Contains(out, `"type": "tool_result"`) {
		t.Fatalf("exec: exit %d\n%s\n%s", code, out, errs)
	}
	out, _, code = c.run("exec", "--json", "--id", "toolu_x1", sid, "Bash", `{"command":"echo scripted; exit 4"}`)
	var block map[string]any
	if code != 1 || json.Unmarshal([]byte(out), &block) != nil || block["tool_use_id"] != "toolu_x1" || block["is_error"] != true {
		t.Fatalf("exec --json of a failing call: exit %d\n%s", code, out)
	}
	// attach follows (here: replays) a call by its id; it never runs again.
	out, _, code = c.run("attach", "--json", sid, "toolu_x1")
	if code != 1 || !strings.Contains(out, "scripted") {
		t.Fatalf("attach: exit %d\n%s", code, out)
	}
	// cancel leaves a finished call alone, and remembers one not sent yet.
	if out = c.must("cancel", sid, "toolu_x1", "toolu_later"); out != "toolu_x1 finished\ntoolu_later not started\n" {
		t.Fatalf("cancel: %q", out)
	}
	if _, _, code = c.run("cancel", sid); code != 2 {
		t.Fatalf("cancel without ids: exit %d", code)
	}
	if _, _, code = c.run("attach", sid, "toolu_never"); code != 1 {
		t.Fatalf("attach of an unknown call: exit %d", code)
	}

	ask := strings.TrimSpace(c.must("session", "create", "--allow", "Bash", "--ask", "Bash(touch *)"))
	out = c.must("explain", ask, "Bash", `{"command":"touch f"}`)
	if !strings.Contains(out, "ask — rule Bash(touch *) from ") {
		t.Fatalf("explain:\n%s", out)
	}
	if out, _, code = c.run("exec", "--deny-all", ask, "Bash", `{"command":"touch f"}`); code != 1 || !strings.Contains(out, "--deny-all") {
		t.Fatalf("exec --deny-all: exit %d\n%s", code, out)
	}
	// Without a terminal and without a flag nobody can answer: denied.
	if out, _, code = c.run("exec", ask, "Bash", `{"command":"touch f"}`); code != 1 || !strings.Contains(out, "no terminal") {
		t.Fatalf("exec without a terminal: exit %d\n%s", code, out)
	}
	if out, _, code = c.run("exec", "--approve-all", ask, "Bash", `{"command":"touch f && echo touched"}`); code != 0 || !strings.Contains(out, "touched") {
		t.Fatalf("exec --approve-all: exit %d\n%s", code, out)
	}

	if out = c.must("tools"); !strings.Contains(out, "Bash ") {
		t.Fatalf("tools:\n%s", out)
	}
	var tools []map[string]any
	if out = c.must("tools", "--json", "--session", sid); json.Unmarshal([]byte(out), &tools) != nil || len(tools) == 0 {
		t.Fatalf("tools --json:\n%s", out)
	}
	if out = c.must("session", "get", sid); !strings.Contains(out, `"id": "`+sid+`"`) {
		t.Fatalf("session get:\n%s", out)
	}
	c.must("session", "delete", sid)
	if _, errs, code = c.run("session", "get", sid); code != 1 || !strings.Contains(errs, "NotFound") {
		t.Fatalf("get after delete: exit %d %s", code, errs)
	}

	for _, args := range [][]string{{}, {"nosuch"}, {"exec", sid, "Bash"}, {"exec", sid, "Bash", "{not json"}, {"session", "create", "--mode", "yolo"}, {"exec", "--approve-all", "--deny-all", sid, "Bash", "{}"}} {
		if _, _, code := c.run(args...); code != 2 {
			t.Errorf("toolctl %q: exit %d, want 2 (usage)", args, code)
		}
	}
	if _, errs, code := c.run("--addr", "127.0.0.1:1", "session", "get", sid); code != 3 {
		t.Errorf("unreachable toold: exit %d, want 3\n%s", code, errs)
	}
}

// terminal runs toolctl under a pseudo-terminal and answers its prompt.
func (c *ctl) terminal(answer string, args ...string) (string, int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), "TOOLD_ADDR="+c.addr)
	tty, err := pty.Start(cmd)
	if err != nil {
		c.t.Fatal(err)
	}
	defer tty.Close()
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	read := make(chan struct{})
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := tty.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				close(read)
				return
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		mu.Lock()
		prompted := strings.Contains(buf.String(), "allow [o]nce / allow for [s]ession / [d]eny [message]? ")
		mu.Unlock()
		if prompted {
			break
		}
		select {
		case <-ctx.Done():
			cmd.Process.Kill()
			c.t.Fatalf("no prompt:\n%s", buf.String())
		case <-read:
			c.t.Fatalf("toolctl ended without a prompt:\n%s", buf.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	io.WriteString(tty, answer+"\n")
	cmd.Wait()
	select {
	case <-read:
	case <-time.After(time.Second): // the tty stays open until closed
	}
	mu.Lock()
	defer mu.Unlock()
	return buf.String(), cmd.ProcessState.ExitCode()
}

func TestPromptOnTerminal(t *testing.T) {
	c := newCtl(t)
	sid := strings.TrimSpace(c.must("session", "create", "--allow", "Bash", "--ask", "Bash(touch *)"))
	ws := strings.TrimSpace(c.must("session", "get", sid))
	var sess struct {
		Workspace string `json:"workspace"`
	}
	json.Unmarshal([]byte(ws), &sess)

	out, code := c.terminal("d not in this repo", "exec", sid, "Bash", `{"command":"touch denied"}`)
	if code != 1 || !strings.Contains(out, "Bash wants to run") || !strings.Contains(out, "rule Bash(touch *)") || !strings.Contains(out, "not in this repo") {
		t.Fatalf("deny: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(sess.Workspace, "denied")); err == nil {
		t.Fatal("the denied call ran")
	}
	out, code = c.terminal("o", "exec", sid, "Bash", `{"command":"touch once && echo made-once"}`)
	if code != 0 || !strings.Contains(out, "made-once") {
		t.Fatalf("allow once: exit %d\n%s", code, out)
	}
	// Allow for the session adds the suggested rules: the same kind of
	// call then runs without asking.
	plain := strings.TrimSpace(c.must("session", "create"))
	out, code = c.terminal("s", "exec", plain, "Bash", `{"command":"mkdir -p d1"}`)
	if code != 0 || !strings.Contains(out, "for the session this allows:") {
		t.Fatalf("allow for session: exit %d\n%s", code, out)
	}
	if out, _, code := c.run("exec", "--deny-all", plain, "Bash", `{"command":"mkdir -p d1"}`); code != 0 {
		t.Fatalf("after allow for session: exit %d\n%s", code, out)
	}

}
