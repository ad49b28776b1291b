package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// eachUser runs f as root (commands as the sandbox user) and, when the
// tests run as root, with toold as uid 10001.
func eachUser(t *testing.T, f func(t *testing.T, uid int)) {
	t.Run("root", func(t *testing.T) { f(t, -1) })
	t.Run("uid10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Logf("the tests run as uid %d: the other subtest already drives a non-root toold", os.Geteuid())
			return
		}
		f(t, 10001)
	})
}

// bypassSession creates a session in bypassPermissions mode and returns
// its id and workspace.
func bypassSession(t *testing.T, ctx context.Context, d *daemon) (string, string) {
	t.Helper()
	sid := createSessionMode(t, ctx, d.addr, "PERMISSION_MODE_BYPASS_PERMISSIONS")
	return sid, filepath.Join(d.root, sid)
}

// gitAsTest runs git as the test's own user in a repository toold's
// sandbox user owns.
func gitAsTest(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=*", "-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

const initRepo = "echo one > a.txt && git init -q -b main && git add a.txt && git -c user.name=t -c user.email=t@example.com commit -qm init"

// EnterWorktree with path: an existing worktree of the session's
// repository is entered, works as the session's directory, is not removed
// by ExitWorktree; a worktree outside the workspace, or a link to one, is
// refused.
func TestWorktreePathEntry(t *testing.T) { eachUser(t, testWorktreePathEntry) }

func testWorktreePathEntry(t *testing.T, uid int) {
	d := startTooldAs(t, uid)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid, ws := bypassSession(t, ctx, d)
	call := func(id, name string, input map[string]any) callResult {
		return execute(t, ctx, d.addr, sid, id, name, input)
	}
	if r := call("p1", "Bash", map[string]any{"command": initRepo + " && git worktree add -q -b side .claude/worktrees/side && echo ok"}); r.IsError || r.Text != "ok" {
		t.Fatalf("set-up: %+v", r)
	}
	side := filepath.Join(ws, ".claude", "worktrees", "side")
	if r := call("p2", "EnterWorktree", map[string]any{"path": ".claude/worktrees/side"}); r.IsError || !strings.HasPrefix(r.Text, "Entered worktree at “"+side+"” on branch “side”.") {
		t.Fatalf("enter: %+v", r)
	}
	if r := call("p3", "Bash", map[string]any{"command": "pwd; git branch --show-current; echo two > b.txt; git status --short"}); r.IsError || r.Text != side+"\nside\n?? b.txt" {
		t.Fatalf("Bash in the worktree: %+v", r)
	}
	if r := call("p4", "Write", map[string]any{"file_path": filepath.Join(ws, "main.txt"), "content": "m\n"}); !r.IsError {
		t.Fatalf("a write to the main checkout: %+v", r)
	}
	if r := call("p5", "ExitWorktree", map[string]any{"action": "remove", "discard_changes": true}); !r.IsError || !strings.Contains(r.Text, "This session is not the owner of the worktree at “"+side+"”") {
		t.Fatalf("remove: %+v", r)
	}
	if r := call("p6", "ExitWorktree", map[string]any{"action": "keep"}); r.IsError || r.Text != "Exited worktree. Your work is preserved at “"+side+"” on branch “side”. Session is now back in “"+ws+"”." {
		t.Fatalf("keep: %+v", r)
	}
	if r := call("p7", "Bash", map[string]any{"command": "pwd; cat .claude/worktrees/side/b.txt"}); r.IsError || r.Text != ws+"\ntwo" {
		t.Fatalf("after keep: %+v", r)
	}

	// A worktree of the repository outside the workspace, and a link in
	// the workspace to it: Claude Code enters them, toold does not.
	outside := filepath.Join(t.TempDir(), "out")
	gitAsTest(t, ws, "worktree", "add", "-q", "-b", "out", outside)
	if r := call("p8", "Bash", map[string]any{"command": "ln -s " + outside + " linkout && echo ok"}); r.IsError {
		t.Fatalf("link: %+v", r)
	}
	for i, p := range []string{outside, filepath.Join(ws, "linkout")} {
		r := call("p9"+string(rune('a'+i)), "EnterWorktree", map[string]any{"path": p})
		if !r.IsError || r.Text != "Cannot enter worktree: the worktree ("+outside+") is outside the session's workspace." {
			t.Fatalf("enter %s: %+v", p, r)
		}
	}
	if r := call("p10", "Bash", map[string]any{"command": "pwd"}); r.Text != ws {
		t.Fatalf("the session moved: %+v", r)
	}
}

// The fresh base: origin's main, fetched by git under the sandbox (origin
// is a repository inside the workspace, which the sandbox lets git read).
func TestWorktreeFreshBase(t *testing.T) { eachUser(t, testWorktreeFreshBase) }

func testWorktreeFreshBase(t *testing.T, uid int) {
	d := startTooldAs(t, uid)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid, ws := bypassSession(t, ctx, d)
	call := func(id, name string, input map[string]any) callResult {
		return execute(t, ctx, d.addr, sid, id, name, input)
	}
	g := "git -c user.name=t -c user.email=t@example.com "
	setup := initRepo + " && " + g + "clone -q --bare --no-hardlinks . origin.git && git remote add origin ./origin.git && git update-ref refs/remotes/origin/main HEAD && " +
		g + "clone -q --no-hardlinks origin.git c2 && echo r > c2/r.txt && git -C c2 add r.txt && " + g + "-C c2 commit -qm remote-ahead && " +
		g + "--git-dir=origin.git fetch -q ./c2 main:main && echo l > l.txt && git add l.txt && " + g + "commit -qm local-ahead && echo ok"
	if r := call("b1", "Bash", map[string]any{"command": setup}); r.IsError || r.Text != "ok" {
		t.Fatalf("set-up: %+v", r)
	}
	if r := call("b2", "EnterWorktree", map[string]any{"name": "f"}); r.IsError {
		t.Fatalf("enter: %+v", r)
	}
	if r := call("b3", "Bash", map[string]any{"command": "git log --format=%s"}); r.IsError || r.Text != "remote-ahead\ninit" {
		t.Fatalf("base: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "FETCH_HEAD")); err != nil {
		t.Errorf("no fetch: %v", err)
	}
}

// WorktreeCreate and WorktreeRemove hooks outside a repository: the hook's
// folder is the session's worktree, its tools work there, ExitWorktree
// removes it with the WorktreeRemove hook; a folder outside the workspace
// is refused.
func TestWorktreeHooks(t *testing.T) { eachUser(t, testWorktreeHooks) }

func testWorktreeHooks(t *testing.T, uid int) {
	dir := t.TempDir()
	passThrough(t, dir)
	// Made here, so that a hook of any user can print it.
	outside := filepath.Join(dir, "outside")
	os.Mkdir(outside, 0o755)
	create := filepath.Join(dir, "create.sh")
	os.WriteFile(create, []byte(`#!/bin/bash
in=$(cat)
name=$(jq -r .name <<<"$in")
if [ "$name" = escape ]; then echo `+outside+`; exit 0; fi
d="$CLAUDE_PROJECT_DIR/wt/$name"
mkdir -p "$d"
# The hook runs as toold's user; the session's commands as the sandbox's.
chown --reference="$CLAUDE_PROJECT_DIR" "$CLAUDE_PROJECT_DIR/wt" "$d"
echo "$d"
`), 0o755)
	remove := filepath.Join(dir, "remove.sh")
	os.WriteFile(remove, []byte(`#!/bin/bash
in=$(cat)
echo "$in" > "$CLAUDE_PROJECT_DIR/.hook-remove.json"
rm -rf "$(jq -r .worktree_path <<<"$in")"
`), 0o755)
	settings := filepath.Join(dir, "settings.json")
	s, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"WorktreeCreate": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": create}}}},
		"WorktreeRemove": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": remove}}}},
	}})
	os.WriteFile(settings, s, 0o644)
	d := startTooldAs(t, uid, "--settings", settings)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sid, ws := bypassSession(t, ctx, d)
	call := func(id, name string, input map[string]any) callResult {
		return execute(t, ctx, d.addr, sid, id, name, input)
	}
	wt := filepath.Join(ws, "wt", "h1")
	if r := call("h1", "EnterWorktree", map[string]any{"name": "h1"}); r.IsError || !strings.HasPrefix(r.Text, "Created worktree at “"+wt+"”. The session is now working in the worktree.") {
		t.Fatalf("enter: %+v", r)
	}
	if r := call("h2", "Bash", map[string]any{"command": "pwd; echo x > made.txt && cat made.txt"}); r.IsError || r.Text != wt+"\nx" {
		t.Fatalf("Bash in the hook's worktree: %+v", r)
	}
	if r := call("h3", "Write", map[string]any{"file_path": "f.txt", "content": "f\n"}); r.IsError {
		t.Fatalf("Write: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(wt, "f.txt")); err != nil {
		t.Fatalf("the Write did not land in the worktree: %v", err)
	}
	if r := call("h4", "ExitWorktree", map[string]any{"action": "remove"}); !r.IsError || !strings.HasPrefix(r.Text, "<tool_use_error>Could not verify worktree state at “"+wt+"”.") {
		t.Fatalf("remove: %+v", r)
	}
	if r := call("h5", "ExitWorktree", map[string]any{"action": "remove", "discard_changes": true}); r.IsError || r.Text != "Exited and removed worktree at “"+wt+"”. Session is now back in “"+ws+"”." {
		t.Fatalf("remove with discard: %+v", r)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	var in map[string]any
	b, _ := os.ReadFile(filepath.Join(ws, ".hook-remove.json"))
	if err := json.Unmarshal(b, &in); err != nil || in["hook_event_name"] != "WorktreeRemove" || in["worktree_path"] != wt || in["cwd"] != wt || in["session_id"] != sid {
		t.Errorf("WorktreeRemove input %s (%v)", b, err)
	}
	if r := call("h6", "EnterWorktree", map[string]any{"name": "escape"}); !r.IsError || r.Text != "Cannot create a worktree: the worktree the WorktreeCreate hook made ("+outside+") is outside the session's workspace." {
		t.Fatalf("outside: %+v", r)
	}
	if r := call("h7", "Bash", map[string]any{"command": "pwd"}); r.Text != ws {
		t.Fatalf("the session moved: %+v", r)
	}
}
