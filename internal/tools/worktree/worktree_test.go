package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/workspace"
)

// gitEnv keeps the tests away from the machine's git configuration.
func gitEnv(home string) []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1"}
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir, cmd.Env = dir, gitEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// newRepo makes a repository with one commit in dir.
func newRepo(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	git(t, dir, "add", "a.txt")
	git(t, dir, "commit", "-qm", "init")
}

func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func req(ws string) Request {
	return Request{SessionID: "s", Dirs: []string{ws}, Cwd: ws, Environ: gitEnv(ws)}
}

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
}

func TestCreateAndRemove(t *testing.T) {
	needGit(t)
	ws := tempDir(t)
	newRepo(t, ws)
	m := NewManager(Options{})
	r := req(ws)
	r.Name = "team/feat"
	wt, err := m.Create(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(ws, ".claude", "worktrees", "team+feat"); wt.Path != want || wt.Branch != "worktree-team+feat" || wt.GitDir != filepath.Join(ws, ".git") {
		t.Fatalf("worktree = %+v", wt)
	}
	if b, err := os.ReadFile(filepath.Join(wt.Path, "a.txt")); err != nil || string(b) != "one\n" {
		t.Fatalf("checkout: %q %v", b, err)
	}
	if list := git(t, ws, "worktree", "list"); !strings.Contains(list, "[worktree-team+feat] locked") {
		t.Errorf("not locked:\n%s", list)
	}
	// The same name again resumes it; the lock the session took makes
	// another taker a guest (see resume_test.go).
	if again, err := m.Create(context.Background(), r); err != nil || !again.Resumed || !again.Guest || again.Path != wt.Path {
		t.Errorf("the same name again = %+v, %v", again, err)
	}
	os.WriteFile(filepath.Join(wt.Path, "new.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(wt.Path, "a.txt"), []byte("changed"), 0o644)
	if files, commits, err := m.Changes(context.Background(), r, wt.Path); err != nil || files != 2 || commits != 0 {
		t.Fatalf("Changes = %d files, %d commits, %v", files, commits, err)
	}
	git(t, wt.Path, "add", "-A")
	git(t, wt.Path, "commit", "-qm", "work")
	if files, commits, err := m.Changes(context.Background(), r, wt.Path); err != nil || files != 0 || commits != 1 {
		t.Fatalf("Changes after commit = %d files, %d commits, %v", files, commits, err)
	}
	if err := m.Remove(context.Background(), r, wt.Path, wt.Branch); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worktree still there: %v", err)
	}
	if branches := git(t, ws, "branch"); strings.Contains(branches, "worktree-") {
		t.Errorf("branch kept:\n%s", branches)
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"feat", true}, {"a/b", true}, {"v1.2_x-y", true}, {strings.Repeat("x", 64), true},
		{"..", false}, {".", false}, {"../x", false}, {"a/../../b", false}, {"a/./b", false},
		{"a//b", false}, {"/abs", false}, {"a/", false}, {"a b", false}, {"a\\b", false},
		{"é", false}, {"a\x00b", false}, {strings.Repeat("x", 65), false}, {"~x", false}, {"$(id)", false},
	} {
		if err := checkName(tc.name); (err == nil) != tc.ok {
			t.Errorf("checkName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	for i := 0; i < 50; i++ {
		if n := randomName(); checkName(n) != nil || strings.Count(n, "-") < 2 {
			t.Fatalf("generated name %q", n)
		}
	}
}

// TestContainment: the repository, its git directory and the worktree's
// place must all be inside the session's workspace.
func TestContainment(t *testing.T) {
	needGit(t)
	m := NewManager(Options{})
	ctx := context.Background()

	t.Run("not a repository", func(t *testing.T) {
		ws := tempDir(t)
		if _, err := m.Create(ctx, req(ws)); !errors.Is(err, ErrNotRepo) {
			t.Fatalf("err = %v, want ErrNotRepo", err)
		}
	})
	t.Run("repository above the workspace (a tenant's subtree)", func(t *testing.T) {
		top := tempDir(t)
		newRepo(t, top)
		ws := filepath.Join(top, "tenants", "a")
		os.MkdirAll(ws, 0o755)
		var out *OutsideError
		if _, err := m.Create(ctx, req(ws)); !errors.As(err, &out) {
			t.Fatalf("err = %v, want OutsideError", err)
		}
		if _, err := os.Stat(filepath.Join(top, ".claude")); !errors.Is(err, os.ErrNotExist) {
			t.Error("something was made above the workspace")
		}
	})
	t.Run("git directory elsewhere", func(t *testing.T) {
		other := tempDir(t)
		newRepo(t, other)
		ws := tempDir(t)
		os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+filepath.Join(other, ".git")+"\n"), 0o644)
		os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644)
		var out *OutsideError
		if _, err := m.Create(ctx, req(ws)); !errors.As(err, &out) {
			t.Fatalf("err = %v, want OutsideError", err)
		}
		if list := git(t, other, "worktree", "list"); strings.Count(list, "\n") != 1 {
			t.Errorf("a worktree was added to the other repository:\n%s", list)
		}
	})
	for _, link := range []string{".claude", ".claude/worktrees"} {
		t.Run(link+" is a link out", func(t *testing.T) {
			ws, outside := tempDir(t), tempDir(t)
			newRepo(t, ws)
			os.MkdirAll(filepath.Dir(filepath.Join(ws, link)), 0o755)
			if err := os.Symlink(outside, filepath.Join(ws, link)); err != nil {
				t.Fatal(err)
			}
			r := req(ws)
			r.Name = "x"
			if _, err := m.Create(ctx, r); err == nil {
				t.Fatal("a worktree was made through a link")
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Errorf("written outside: %v", ents)
			}
		})
	}
	t.Run("workspace itself is a link", func(t *testing.T) {
		real := tempDir(t)
		newRepo(t, real)
		link := filepath.Join(tempDir(t), "ws")
		os.Symlink(real, link)
		r := req(link)
		r.Name = "x"
		wt, err := m.Create(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(wt.Path, real+"/") {
			t.Errorf("path %s not below the real workspace", wt.Path)
		}
	})
}

// TestTools runs EnterWorktree and ExitWorktree over a memory store: the
// session's worktree, cwd and directories move and come back.
func TestTools(t *testing.T) {
	needGit(t)
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	newRepo(t, ws)
	env.Environ = gitEnv(ws)
	st := memstore.New()
	ctx := context.Background()
	if err := st.CreateSession(ctx, &store.Session{ID: env.SessionID, Workspace: ws, Cwd: ws, Mode: "default"}); err != nil {
		t.Fatal(err)
	}
	enter, exit := New(NewManager(Options{}), st)

	if _, err := tooltest.Run(t, exit, env, map[string]any{"action": "keep"}); err == nil || !strings.HasPrefix(err.Error(), "No-op:") {
		t.Fatalf("exit without a worktree: %v", err)
	}
	res, err := tooltest.Run(t, enter, env, map[string]any{"name": "feat"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ws, ".claude", "worktrees", "feat")
	if want := "Created worktree at “" + path + "” on branch “worktree-feat”."; !strings.HasPrefix(tooltest.Text(res), want) {
		t.Fatalf("result %q", tooltest.Text(res))
	}
	s, _ := st.GetSession(ctx, env.SessionID)
	if s.Worktree != path || s.Cwd != path || s.Root() != path || strings.Join(s.Dirs(), ",") != path+","+filepath.Join(ws, ".git") {
		t.Fatalf("session after enter: %+v", s)
	}
	if _, err := tooltest.Run(t, enter, env, map[string]any{"name": "other"}); err == nil || err.Error() != alreadyIn {
		t.Fatalf("second enter: %v", err)
	}
	// The session now works in the worktree: its files are the worktree's.
	wsw, err := workspace.Open(s.Dirs()[0], s.Dirs()[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	defer wsw.Close()
	wenv := *env
	wenv.Files, wenv.Cwd = wsw, path
	os.WriteFile(filepath.Join(path, "b.txt"), []byte("two\n"), 0o644)
	_, err = tooltest.Run(t, exit, &wenv, map[string]any{"action": "remove"})
	var te *tool.Error
	if !errors.As(err, &te) || !strings.HasPrefix(te.Msg, "Worktree has 1 uncommitted file.") {
		t.Fatalf("remove with a change: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("the refused remove removed the worktree")
	}
	res, err = tooltest.Run(t, exit, &wenv, map[string]any{"action": "remove", "discard_changes": true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Exited and removed worktree at “" + path + "”. Discarded 1 uncommitted file. Session is now back in “" + ws + "”."; tooltest.Text(res) != want {
		t.Fatalf("result %q\nwant   %q", tooltest.Text(res), want)
	}
	s, _ = st.GetSession(ctx, env.SessionID)
	if s.Worktree != "" || s.WorktreeGitDir != "" || s.Cwd != ws || s.Root() != ws {
		t.Fatalf("session after exit: %+v", s)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worktree kept: %v", err)
	}
}
