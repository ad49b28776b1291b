package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// hookManager is a Manager whose WorktreeCreate hook runs create (a bash
// script body) and whose WorktreeRemove hook runs remove ("" for none).
func hookManager(t *testing.T, create, remove string) (*Manager, *[]hooks.Report, string) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/jq"); err != nil {
		t.Skip("jq is not installed")
	}
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755)
		return `[{"hooks":[{"type":"command","command":"` + p + `"}]}]`
	}
	settings := `{"hooks":{"WorktreeCreate":` + script("create.sh", create)
	if remove != "" {
		settings += `,"WorktreeRemove":` + script("remove.sh", remove)
	}
	cfg, err := hooks.ParseSettings([]byte(settings+"}}"), "test")
	if err != nil {
		t.Fatal(err)
	}
	r, err := hooks.New(hooks.Options{Settings: cfg, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	var reports []hooks.Report
	m := NewManager(Options{Hooks: r, OnHook: func(_ context.Context, _ string, rep hooks.Report) { reports = append(reports, rep) }})
	return m, &reports, filepath.Join(dir, "create.sh")
}

const makeDir = `name=$(jq -r .name); d="$CLAUDE_PROJECT_DIR/wt/$name"; mkdir -p "$d"; echo "made it"; echo "$d"`

// TestHookWorktree: outside a repository the hook's folder becomes the
// session's worktree; ExitWorktree cannot look into it (remove needs
// discard_changes) and removes it with the WorktreeRemove hook.
func TestHookWorktree(t *testing.T) {
	needGit(t)
	m, reports, _ := hookManager(t, makeDir, `cat > "$CLAUDE_PROJECT_DIR/removed.json"; rm -rf "$(jq -r .worktree_path < "$CLAUDE_PROJECT_DIR/removed.json")"`)
	f := newSessionFixture(t, m)
	wt := filepath.Join(f.ws, "wt", "h1")
	got, err := f.call(f.enter, map[string]any{"name": "h1"})
	if err != nil || got != "Created worktree at “"+wt+"”."+enterTail {
		t.Fatalf("enter: %q %v", got, err)
	}
	if s := f.session(); s.Worktree != wt || s.WorktreeKind != store.WorktreeHook || s.WorktreeGitDir != "" || s.Cwd != wt || strings.Join(s.Dirs(), ",") != wt {
		t.Fatalf("session %+v", s)
	}
	if len(*reports) != 1 || (*reports)[0].Event != hooks.WorktreeCreate || (*reports)[0].Status != hooks.StatusOK {
		t.Errorf("reports %+v", *reports)
	}
	_, err = f.call(f.exit, map[string]any{"action": "remove"})
	var te *tool.Error
	if !errors.As(err, &te) || te.Msg != "Could not verify worktree state at “"+wt+"”. Refusing to remove without explicit confirmation. Confirm with the user, then re-invoke with discard_changes: true to proceed — or use action: \"keep\" to preserve the worktree." {
		t.Fatalf("remove: %v", err)
	}
	got, err = f.call(f.exit, map[string]any{"action": "remove", "discard_changes": true})
	if err != nil || got != "Exited and removed worktree at “"+wt+"”. Session is now back in “"+f.ws+"”." {
		t.Fatalf("remove with discard: %q %v", got, err)
	}
	if _, err := os.Stat(wt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worktree kept: %v", err)
	}
	in, _ := os.ReadFile(filepath.Join(f.ws, "removed.json"))
	if !strings.Contains(string(in), `"hook_event_name":"WorktreeRemove"`) || !strings.Contains(string(in), `"cwd":"`+wt+`"`) {
		t.Errorf("WorktreeRemove input %s", in)
	}
	// keep: no hook, no branch.
	f.call(f.enter, map[string]any{"name": "h2"})
	got, err = f.call(f.exit, map[string]any{"action": "keep"})
	if err != nil || got != "Exited worktree. Your work is preserved at “"+filepath.Join(f.ws, "wt", "h2")+"”. Session is now back in “"+f.ws+"”." {
		t.Fatalf("keep: %q %v", got, err)
	}
}

// TestHookWorktreeNotRemoved: with no WorktreeRemove hook, or one that
// fails, the folder stays and the session leaves it.
func TestHookWorktreeNotRemoved(t *testing.T) {
	needGit(t)
	for name, remove := range map[string]string{"no hook": "", "failing hook": `cat >/dev/null; echo nope >&2; exit 3`} {
		t.Run(name, func(t *testing.T) {
			m, _, _ := hookManager(t, makeDir, remove)
			f := newSessionFixture(t, m)
			f.call(f.enter, map[string]any{"name": "r"})
			wt := filepath.Join(f.ws, "wt", "r")
			got, err := f.call(f.exit, map[string]any{"action": "remove", "discard_changes": true})
			if err != nil || got != "Exited worktree but could not remove it. It is kept at “"+wt+"”. Session is now back in “"+f.ws+"”." {
				t.Fatalf("remove: %q %v", got, err)
			}
			if _, err := os.Stat(wt); err != nil || f.session().Worktree != "" {
				t.Errorf("after: %v %+v", err, f.session())
			}
		})
	}
}

// TestHookWorktreeChecks: the hook's answer is checked as Claude Code
// checks it, and must lie in the workspace.
func TestHookWorktreeChecks(t *testing.T) {
	needGit(t)
	outside := tempDir(t)
	for _, tc := range []struct {
		name, hook, want string
		git              bool
	}{
		{"fails", `cat >/dev/null; echo printed; echo 'cannot make it' >&2; exit 1`, "WorktreeCreate hook failed: %HOOK%: cannot make it", false},
		{"silent failure", `cat >/dev/null; exit 1`, "WorktreeCreate hook failed: %HOOK%: no output", false},
		{"no path", `cat >/dev/null`, "WorktreeCreate hook failed: hook succeeded but returned no worktree path (command: echo the path to stdout; http/callback: return hookSpecificOutput.worktreePath)", false},
		{"missing", `cat >/dev/null; echo "$CLAUDE_PROJECT_DIR/missing"`, `Path "%WS%/missing" does not exist`, false},
		{"json is a path", `cat >/dev/null; echo '{"hookSpecificOutput":{"worktreePath":"/x"}}'`, `Path "%WS%/{"hookSpecificOutput":{"worktreePath":"/x"}}" does not exist`, false},
		{"a link", `cat >/dev/null; mkdir -p "$CLAUDE_PROJECT_DIR/real"; ln -s "$CLAUDE_PROJECT_DIR/real" "$CLAUDE_PROJECT_DIR/lnk"; echo "$CLAUDE_PROJECT_DIR/lnk"`, "Refusing to use %WS%/lnk as an isolation worktree: it is a symbolic link, so the tree it would isolate into cannot be pinned down", false},
		{"a link on the way", `cat >/dev/null; ln -s ` + outside + ` "$CLAUDE_PROJECT_DIR/out"; mkdir -p ` + outside + `/x; echo "$CLAUDE_PROJECT_DIR/out/x"`, "Refusing to use %WS%/out/x as an isolation worktree: a folder on the way to it is a symbolic link", false},
		{"a file", `cat >/dev/null; echo x > "$CLAUDE_PROJECT_DIR/afile"; echo "$CLAUDE_PROJECT_DIR/afile"`, "Refusing to use %WS%/afile as an isolation worktree: git could not be run to resolve it", false},
		{"outside", `cat >/dev/null; mkdir -p ` + outside + `/wt; echo ` + outside + `/wt`, "Cannot create a worktree: the worktree the WorktreeCreate hook made (" + outside + "/wt) is outside the session's workspace.", false},
		{"a folder of the repository", makeDir, "Refusing to use %WS%/wt/b as an isolation worktree: git resolves its working tree to %WS% (a core.worktree redirect, or a checkout discovered above it)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, script := hookManager(t, tc.hook, "")
			f := newSessionFixture(t, m)
			if tc.git {
				newRepo(t, f.ws)
			}
			_, err := f.call(f.enter, map[string]any{"name": "b"})
			want := strings.ReplaceAll(strings.ReplaceAll(tc.want, "%WS%", f.ws), "%HOOK%", script)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("err %v\nwant %s", err, want)
			}
			if s := f.session(); s.Worktree != "" || s.Cwd != f.ws {
				t.Errorf("the session moved: %+v", s)
			}
		})
	}
}

// TestHookGitWorktree: a hook that makes a git worktree; without a
// WorktreeRemove hook git removes it, keeping its branch.
func TestHookGitWorktree(t *testing.T) {
	needGit(t)
	m, _, _ := hookManager(t, `name=$(jq -r .name); d="$CLAUDE_PROJECT_DIR/.claude/worktrees/$name"; git -C "$CLAUDE_PROJECT_DIR" worktree add -q -b "hook-$name" "$d" >&2; echo "$d"`, "")
	f := newSessionFixture(t, m)
	newRepo(t, f.ws)
	wt := filepath.Join(f.ws, ".claude", "worktrees", "g1")
	if got, err := f.call(f.enter, map[string]any{"name": "g1"}); err != nil || got != "Created worktree at “"+wt+"”."+enterTail {
		t.Fatalf("enter: %q %v", got, err)
	}
	if s := f.session(); s.WorktreeGitDir != filepath.Join(f.ws, ".git") {
		t.Errorf("git dir %q", s.WorktreeGitDir)
	}
	if got, err := f.call(f.exit, map[string]any{"action": "remove", "discard_changes": true}); err != nil || !strings.HasPrefix(got, "Exited and removed worktree at “"+wt+"”.") {
		t.Fatalf("remove: %q %v", got, err)
	}
	if list := git(t, f.ws, "worktree", "list"); strings.Count(list, "\n") != 1 || !strings.Contains(git(t, f.ws, "branch"), "hook-g1") {
		t.Errorf("after removal:\n%s%s", list, git(t, f.ws, "branch"))
	}
}
