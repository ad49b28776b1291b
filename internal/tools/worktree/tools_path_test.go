package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/workspace"
)

// sessionFixture is a session over a memory store, in a workspace that
// holds a repository.
type sessionFixture struct {
	t           *testing.T
	st          *memstore.Store
	env         *tool.Env
	ws          string
	enter, exit tool.Tool
}

func newSessionFixture(t *testing.T, m *Manager) *sessionFixture {
	t.Helper()
	env, _, _ := tooltest.Env(t)
	f := &sessionFixture{t: t, st: memstore.New(), env: env, ws: env.Cwd}
	env.Environ = gitEnv(f.ws)
	if err := f.st.CreateSession(context.Background(), &store.Session{ID: env.SessionID, Workspace: f.ws, Cwd: f.ws, Mode: "default"}); err != nil {
		t.Fatal(err)
	}
	f.enter, f.exit = New(m, f.st)
	return f
}

func (f *sessionFixture) session() *store.Session {
	s, err := f.st.GetSession(context.Background(), f.env.SessionID)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// call runs a tool as the engine would: with the session's directories
// and directory as they are now.
func (f *sessionFixture) call(tl tool.Tool, input map[string]any) (string, error) {
	f.t.Helper()
	s := f.session()
	w, err := workspace.Open(s.Dirs()[0], s.Dirs()[1:]...)
	if err != nil {
		f.t.Fatal(err)
	}
	defer w.Close()
	env := *f.env
	env.Files, env.Cwd = w, s.Cwd
	res, err := tooltest.Run(f.t, tl, &env, input)
	if err != nil {
		return "", err
	}
	return tooltest.Text(res), nil
}

// TestEnterByPath: the session moves into an existing worktree, cannot
// remove it, and keep brings it back to where it was; switching from a
// worktree EnterWorktree made lets go of that one.
func TestEnterByPath(t *testing.T) {
	needGit(t)
	f := newSessionFixture(t, NewManager(Options{}))
	ws := f.ws
	newRepo(t, ws)
	git(t, ws, "worktree", "add", "-q", "-b", "b", ".claude/worktrees/b")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	f.st.SetCwd(context.Background(), f.env.SessionID, filepath.Join(ws, "sub"))
	b := filepath.Join(ws, ".claude", "worktrees", "b")

	got, err := f.call(f.enter, map[string]any{"path": "../.claude/worktrees/b"})
	if err != nil || got != "Entered worktree at “"+b+"” on branch “b”."+enterTail {
		t.Fatalf("enter: %q %v", got, err)
	}
	s := f.session()
	if s.Worktree != b || s.Cwd != b || s.WorktreeKind != store.WorktreeEntered || s.WorktreeReturn != filepath.Join(ws, "sub") ||
		strings.Join(s.Dirs(), ",") != b+","+filepath.Join(ws, ".git") {
		t.Fatalf("session %+v", s)
	}
	if strings.Contains(git(t, ws, "worktree", "list"), "locked") {
		t.Error("an entered worktree was locked")
	}
	for _, discard := range []bool{false, true} {
		_, err := f.call(f.exit, map[string]any{"action": "remove", "discard_changes": discard})
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || !strings.HasPrefix(te.Msg, "This session is not the owner of the worktree at “"+b+"”") ||
			!strings.Contains(te.Msg, "Use action: \"keep\" to return to “"+filepath.Join(ws, "sub")+"”.") {
			t.Fatalf("remove (discard %v): %v", discard, err)
		}
	}
	got, err = f.call(f.exit, map[string]any{"action": "keep"})
	if err != nil || got != "Exited worktree. Your work is preserved at “"+b+"” on branch “b”. Session is now back in “"+filepath.Join(ws, "sub")+"”." {
		t.Fatalf("keep: %q %v", got, err)
	}
	if s := f.session(); s.Worktree != "" || s.Cwd != filepath.Join(ws, "sub") || s.WorktreeKind != "" || s.WorktreeReturn != "" {
		t.Fatalf("after keep: %+v", s)
	}
	if _, err := os.Stat(b); err != nil {
		t.Fatal("keep removed the worktree")
	}

	// From a worktree EnterWorktree made: it is let go of (unlocked, on
	// disk) and only the new one is the session's.
	f.st.SetCwd(context.Background(), f.env.SessionID, ws)
	if _, err := f.call(f.enter, map[string]any{"name": "a"}); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(ws, ".claude", "worktrees", "a")
	if !strings.Contains(git(t, ws, "worktree", "list"), "[worktree-a] locked") {
		t.Fatal("the made worktree is not locked")
	}
	if _, err := f.call(f.enter, map[string]any{"path": ws + "/sub"}); err == nil {
		t.Fatal("switched to a directory outside .claude/worktrees")
	}
	if got, err := f.call(f.enter, map[string]any{"path": b}); err != nil || !strings.HasPrefix(got, "Entered worktree at “"+b+"”") {
		t.Fatalf("switch: %q %v", got, err)
	}
	if strings.Contains(git(t, ws, "worktree", "list"), "locked") {
		t.Error("the worktree left behind is still locked")
	}
	if got, err := f.call(f.enter, map[string]any{"path": a}); err != nil || !strings.HasPrefix(got, "Entered worktree at “"+a+"” on branch “worktree-a”") {
		t.Fatalf("back: %q %v", got, err)
	}
	// Entered by its path, even the one this session made is not its to
	// remove any more.
	if _, err := f.call(f.exit, map[string]any{"action": "remove", "discard_changes": true}); err == nil || !strings.Contains(err.Error(), "not the owner") {
		t.Fatalf("remove after switching back: %v", err)
	}
	if got, err := f.call(f.exit, map[string]any{"action": "keep"}); err != nil || !strings.HasSuffix(got, "Session is now back in “"+ws+"”.") {
		t.Fatalf("keep: %q %v", got, err)
	}
}

// TestEnterByPathNested: ExitWorktree returns to the nested repository
// that owns the worktree.
func TestEnterByPathNested(t *testing.T) {
	needGit(t)
	f := newSessionFixture(t, NewManager(Options{}))
	newRepo(t, f.ws)
	sub := filepath.Join(f.ws, "sub")
	newRepo(t, sub)
	git(t, sub, "worktree", "add", "-q", "-b", "n", ".claude/worktrees/n")
	n := filepath.Join(sub, ".claude", "worktrees", "n")
	if _, err := f.call(f.enter, map[string]any{"path": n}); err != nil {
		t.Fatal(err)
	}
	if s := f.session(); strings.Join(s.Dirs(), ",") != n+","+filepath.Join(sub, ".git") {
		t.Errorf("dirs %v", s.Dirs())
	}
	if got, err := f.call(f.exit, map[string]any{"action": "keep"}); err != nil || got != "Exited worktree. Your work is preserved at “"+n+"” on branch “n”. Session is now back in “"+sub+"”." {
		t.Fatalf("keep: %q %v", got, err)
	}
}

func TestEnterInput(t *testing.T) {
	enter, _ := New(NewManager(Options{}), memstore.New())
	_, err := enter.Parse([]byte(`{"name":"x","path":"y"}`))
	if err == nil || err.Error() != "InputValidationError: [\n  {\n    \"code\": \"custom\",\n    \"path\": [],\n    \"message\": \"Provide at most one of `name` or `path`, not both.\"\n  }\n]" {
		t.Fatalf("both: %v", err)
	}
	// An empty path is none: a new worktree, which needs no permission.
	inv, err := enter.Parse([]byte(`{"path":""}`))
	if err != nil || !inv.Traits().ReadOnly {
		t.Fatalf("empty path: %v %+v", err, inv)
	}
	inv, _ = enter.Parse([]byte(`{"path":"/elsewhere"}`))
	inv.(interface{ Situate(string) }).Situate(t.TempDir())
	if inv.Traits().ReadOnly {
		t.Error("a path outside .claude/worktrees needs no permission")
	}
}
