package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// EnterWorktree with a name whose worktree exists resumes it, as root (git
// runs as the sandbox user) and as a non-root toold (uid 10001): kept work
// is there again, a clean worktree with nothing of its own is reset to
// origin's moved branch, an orphaned folder is cleared and made anew, and
// a link on the way is refused.
func TestWorktreeResume(t *testing.T) {
	t.Run("root", func(t *testing.T) { testWorktreeResume(t, -1) })
	t.Run("uid10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Logf("the tests run as uid %d: the other subtest already drives a non-root toold", os.Geteuid())
			return
		}
		testWorktreeResume(t, 10001)
	})
}

func testWorktreeResume(t *testing.T, uid int) {
	d := startTooldAs(t, uid)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := json.Marshal(map[string]any{"mode": "PERMISSION_MODE_BYPASS_PERMISSIONS"})
	out, err := sh(t, ctx, `grpcurl -plaintext -d @ `+d.addr+` toold.v1.SessionService/CreateSession <<'EOF' | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'
`+string(req)+`
EOF`)
	sid := strings.TrimSpace(out)
	if err != nil || len(sid) != 26 {
		t.Fatalf("CreateSession: %v %q", err, out)
	}
	ws := filepath.Join(d.root, sid)
	call := func(id, name string, input map[string]any) callResult {
		return execute(t, ctx, d.addr, sid, id, name, input)
	}
	g := `git -c user.name=t -c user.email=t@example.com`
	if r := call("r0", "Bash", map[string]any{"command": "echo one > a.txt && git init -q -b main && git add a.txt && " + g + " commit -qm init && " + g + " clone -q --bare . origin.git && git remote add origin \"$PWD/origin.git\" && git fetch -q origin && echo ok"}); r.IsError || r.Text != "ok" {
		t.Fatalf("making the repository: %+v", r)
	}
	wt := filepath.Join(ws, ".claude", "worktrees", "feat")
	if r := call("r1", "EnterWorktree", map[string]any{"name": "feat"}); r.IsError || !strings.HasPrefix(r.Text, "Created worktree at “"+wt+"”") {
		t.Fatalf("EnterWorktree: %+v", r)
	}
	call("r2", "Write", map[string]any{"file_path": "b.txt", "content": "two\n"})
	if r := call("r3", "ExitWorktree", map[string]any{"action": "keep"}); r.IsError {
		t.Fatalf("keep: %+v", r)
	}
	// Kept work: resumed as it is.
	r := call("r4", "EnterWorktree", map[string]any{"name": "feat"})
	if r.IsError || !strings.HasPrefix(r.Text, "Resumed worktree at “"+wt+"” on branch “worktree-feat”. A worktree with this name already existed and was resumed as-is") {
		t.Fatalf("resume: %+v", r)
	}
	if r := call("r5", "Bash", map[string]any{"command": "pwd; cat b.txt"}); r.IsError || r.Text != wt+"\ntwo" {
		t.Fatalf("in the resumed worktree: %+v", r)
	}
	if r := call("r6", "Bash", map[string]any{"command": "rm b.txt"}); r.IsError {
		t.Fatalf("rm: %+v", r)
	}
	call("r7", "ExitWorktree", map[string]any{"action": "keep"})
	// Nothing of its own, origin moved on: reset to it.
	if r := call("r8", "Bash", map[string]any{"command": g + " clone -q origin.git c2 && echo r > c2/r.txt && git -C c2 add r.txt && " + g + " -C c2 commit -qm remote-ahead && git --git-dir=origin.git fetch -q \"$PWD/c2\" main:main && git fetch -q origin && echo ok"}); r.IsError || r.Text != "ok" {
		t.Fatalf("moving origin: %+v", r)
	}
	if r := call("r9", "EnterWorktree", map[string]any{"name": "feat"}); r.IsError || !strings.HasPrefix(r.Text, "Reused worktree at “"+wt+"”") {
		t.Fatalf("reuse: %+v", r)
	}
	if r := call("r10", "Bash", map[string]any{"command": "git log --format=%s"}); r.IsError || r.Text != "remote-ahead\ninit" {
		t.Fatalf("after the reset: %+v", r)
	}
	if r := call("r11", "ExitWorktree", map[string]any{"action": "remove"}); r.IsError {
		t.Fatalf("remove: %+v", r)
	}
	// An orphaned folder of the name: cleared and made anew.
	if r := call("r12", "Bash", map[string]any{"command": "mkdir -p .claude/worktrees/or && echo data > .claude/worktrees/or/x.txt && echo \"gitdir: $PWD/.git/worktrees/or\" > .claude/worktrees/or/.git && git remote remove origin && rm -rf origin.git c2 && echo ok"}); r.IsError || r.Text != "ok" {
		t.Fatalf("the orphan: %+v", r)
	}
	if r := call("r13", "EnterWorktree", map[string]any{"name": "or"}); r.IsError || !strings.HasPrefix(r.Text, "Created worktree at") {
		t.Fatalf("orphan: %+v", r)
	}
	if r := call("r14", "Bash", map[string]any{"command": "ls"}); r.IsError || r.Text != "a.txt" {
		t.Fatalf("the orphan's files: %+v", r)
	}
	call("r15", "ExitWorktree", map[string]any{"action": "remove"})
	// A link of the name to a folder outside: refused, nothing touched
	// there.
	outside := t.TempDir()
	passThrough(t, outside)
	os.WriteFile(filepath.Join(outside, "keep.txt"), []byte("x"), 0o644)
	if r := call("r16", "Bash", map[string]any{"command": "ln -s " + outside + " .claude/worktrees/ln && echo ok"}); r.IsError {
		t.Fatalf("the link: %+v", r)
	}
	if r := call("r17", "EnterWorktree", map[string]any{"name": "ln"}); !r.IsError || !strings.HasPrefix(r.Text, "Cannot create worktree: .claude/worktrees/ln in the repository is a symlink.") {
		t.Fatalf("link: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep.txt")); err != nil {
		t.Fatalf("outside touched: %v", err)
	}
}
