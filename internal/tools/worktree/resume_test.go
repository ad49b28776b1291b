package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// made is a worktree Create made and ExitWorktree keep let go of.
func made(t *testing.T, m *Manager, r Request) Worktree {
	t.Helper()
	wt, err := m.Create(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	m.Unlock(context.Background(), r, wt.Path)
	return wt
}

func TestResumeKept(t *testing.T) {
	needGit(t)
	ws := tempDir(t)
	newRepo(t, ws)
	m := NewManager(Options{})
	r := req(ws)
	r.Name = "feat"
	wt := made(t, m, r)
	os.WriteFile(filepath.Join(wt.Path, "b.txt"), []byte("two\n"), 0o644)
	git(t, wt.Path, "add", "b.txt")
	git(t, wt.Path, "commit", "-qm", "two")
	os.WriteFile(filepath.Join(wt.Path, "wip.txt"), []byte("wip\n"), 0o644)
	again, err := m.Create(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Resumed || again.Reset || again.Guest || again.Path != wt.Path || again.Branch != "worktree-feat" || again.GitDir != wt.GitDir {
		t.Fatalf("resumed = %+v", again)
	}
	if log := git(t, wt.Path, "log", "--format=%s"); log != "two\ninit\n" {
		t.Errorf("log = %q", log)
	}
	if _, err := os.Stat(filepath.Join(wt.Path, "wip.txt")); err != nil {
		t.Errorf("uncommitted file lost: %v", err)
	}
	if list := git(t, ws, "worktree", "list", "--porcelain"); !strings.Contains(list, "locked claude session") {
		t.Errorf("not locked again:\n%s", list)
	}
	if got := createdText(again); !strings.HasPrefix(got, "Resumed worktree at “"+wt.Path+"” on branch “worktree-feat”. A worktree with this name already existed and was resumed as-is") {
		t.Errorf("text = %q", got)
	}
}

func TestResumeOtherBranchAndDetached(t *testing.T) {
	needGit(t)
	ws := tempDir(t)
	newRepo(t, ws)
	git(t, ws, "worktree", "add", "-q", "-b", "side", ".claude/worktrees/ob")
	git(t, ws, "worktree", "add", "-q", "--detach", ".claude/worktrees/dt")
	m := NewManager(Options{})
	for _, name := range []string{"ob", "dt"} {
		r := req(ws)
		r.Name = name
		wt, err := m.Create(context.Background(), r)
		if err != nil || !wt.Resumed || wt.Guest || wt.Branch != "worktree-"+name {
			t.Errorf("%s: %+v, %v", name, wt, err)
		}
	}
	if b := git(t, ws, "branch", "--list", "worktree-*"); b != "" {
		t.Errorf("a branch was made: %q", b)
	}
}

func TestResumeLocks(t *testing.T) {
	needGit(t)
	ws := tempDir(t)
	newRepo(t, ws)
	m := NewManager(Options{})
	for _, tc := range []struct {
		reason string
		guest  bool
	}{
		{"manual hold", true},
		{"claude session", true},
		// Claude Code's lock of a process that is gone is stale: taken over.
		{"claude session x (pid 999999999 start Mon)", false},
		// ... of a live one (this test's parent) is not.
		{"claude session x (pid " + itoa(os.Getppid()) + " start Mon)", true},
	} {
		name := "l" + itoa(len(tc.reason))
		git(t, ws, "worktree", "add", "-q", "-b", "worktree-"+name, ".claude/worktrees/"+name)
		git(t, ws, "worktree", "lock", "--reason", tc.reason, ".claude/worktrees/"+name)
		r := req(ws)
		r.Name = name
		wt, err := m.Create(context.Background(), r)
		if err != nil || !wt.Resumed || wt.Guest != tc.guest {
			t.Errorf("lock %q: %+v, %v", tc.reason, wt, err)
			continue
		}
		want := tc.reason
		if !tc.guest {
			want = "claude session"
		}
		if reason, locked := m.lockReason(context.Background(), r, wt); !locked || reason != want {
			t.Errorf("lock %q: now %q %v", tc.reason, reason, locked)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// originRepo gives the repository at ws an origin whose main then moves
// on by one commit, fetched.
func originRepo(t *testing.T, ws string) (advance func()) {
	t.Helper()
	origin := filepath.Join(filepath.Dir(ws), filepath.Base(ws)+"-origin.git")
	git(t, ws, "clone", "-q", "--bare", ws, origin)
	git(t, ws, "remote", "add", "origin", origin)
	git(t, ws, "fetch", "-q", "origin")
	n := 0
	return func() {
		n++
		c := filepath.Join(filepath.Dir(ws), filepath.Base(ws)+"-c"+itoa(n))
		git(t, ws, "clone", "-q", origin, c)
		os.WriteFile(filepath.Join(c, "r.txt"), []byte(itoa(n)), 0o644)
		git(t, c, "add", "r.txt")
		git(t, c, "commit", "-qm", "remote-ahead")
		git(t, c, "push", "-q", "origin", "HEAD:main")
		git(t, ws, "fetch", "-q", "origin")
	}
}

func TestResumeResetToFreshBase(t *testing.T) {
	needGit(t)
	for _, tc := range []struct {
		name  string
		work  func(t *testing.T, wt Worktree)
		reset bool
	}{
		{"clean", func(*testing.T, Worktree) {}, true},
		{"untracked", func(t *testing.T, wt Worktree) {
			os.WriteFile(filepath.Join(wt.Path, "w.txt"), []byte("wip"), 0o644)
		}, false},
		{"commit", func(t *testing.T, wt Worktree) {
			git(t, wt.Path, "commit", "-q", "--allow-empty", "-m", "mine")
		}, false},
		{"switched", func(t *testing.T, wt Worktree) {
			git(t, wt.Path, "switch", "-q", "-c", "other")
		}, false},
		{"merged, upstream gone", func(t *testing.T, wt Worktree) {
			git(t, wt.Path, "commit", "-q", "--allow-empty", "-m", "mine")
			git(t, wt.Path, "push", "-q", "origin", "HEAD:main")
			git(t, wt.Path, "config", "branch."+wt.Branch+".remote", "origin")
			git(t, wt.Path, "config", "branch."+wt.Branch+".merge", "refs/heads/gone")
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := tempDir(t)
			newRepo(t, ws)
			advance := originRepo(t, ws)
			m := NewManager(Options{})
			r := req(ws)
			r.Name = "ru"
			wt := made(t, m, r)
			if got := m.readBase(wt); got == "" || got != strings.TrimSpace(git(t, wt.Path, "rev-parse", "HEAD")) {
				t.Fatalf("base recorded = %q", got)
			}
			tc.work(t, wt)
			advance()
			before := git(t, wt.Path, "rev-parse", "HEAD")
			again, err := m.Create(context.Background(), r)
			if err != nil || !again.Resumed || again.Reset != tc.reset {
				t.Fatalf("resumed = %+v, %v", again, err)
			}
			after := git(t, wt.Path, "rev-parse", "HEAD")
			origin := git(t, ws, "rev-parse", "origin/main")
			if tc.reset && (after != origin || m.readBase(wt) != strings.TrimSpace(origin)) {
				t.Errorf("not reset to origin/main: %s vs %s", after, origin)
			}
			if !tc.reset && after != before {
				t.Errorf("moved though it had work: %s -> %s", before, after)
			}
		})
	}
	// With the head base nothing is reset.
	ws := tempDir(t)
	newRepo(t, ws)
	advance := originRepo(t, ws)
	m := NewManager(Options{BaseRef: BaseHead})
	r := req(ws)
	r.Name = "rh"
	made(t, m, r)
	advance()
	if again, err := m.Create(context.Background(), r); err != nil || !again.Resumed || again.Reset {
		t.Errorf("head base: %+v, %v", again, err)
	}
}

func TestResumeOrphan(t *testing.T) {
	needGit(t)
	orphan := func(t *testing.T, ws, name, admin string) string {
		d := filepath.Join(ws, ".claude", "worktrees", name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "x.txt"), []byte("data"), 0o644)
		os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: "+admin+"\n"), 0o644)
		return d
	}
	t.Run("cleared", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		d := orphan(t, ws, "or", filepath.Join(ws, ".git", "worktrees", "or"))
		r := req(ws)
		r.Name = "or"
		wt, err := NewManager(Options{}).Create(context.Background(), r)
		if err != nil || wt.Resumed || wt.Path != d {
			t.Fatalf("%+v, %v", wt, err)
		}
		if _, err := os.Stat(filepath.Join(d, "x.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the orphan's file is still there: %v", err)
		}
	})
	t.Run("unpushed", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		originRepo(t, ws)
		git(t, ws, "branch", "worktree-ou")
		git(t, ws, "commit", "-q", "--allow-empty", "-m", "unpushed")
		git(t, ws, "branch", "-f", "worktree-ou")
		d := orphan(t, ws, "ou", filepath.Join(ws, ".git", "worktrees", "ou"))
		r := req(ws)
		r.Name = "ou"
		_, err := NewManager(Options{}).Create(context.Background(), r)
		if err == nil || err.Error() != "Orphaned worktree dir at "+d+" but branch worktree-ou has unpushed commits — refusing to self-heal. Push or delete the branch, then retry." {
			t.Fatalf("err = %v", err)
		}
		if _, err := os.Stat(filepath.Join(d, "x.txt")); err != nil {
			t.Errorf("the folder was touched: %v", err)
		}
	})
	t.Run("elsewhere", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		outside := tempDir(t)
		for _, admin := range []string{filepath.Join(ws, "other", ".git", "worktrees", "oe"), filepath.Join(outside, "gone")} {
			d := orphan(t, ws, "oe", admin)
			r := req(ws)
			r.Name = "oe"
			_, err := NewManager(Options{}).Create(context.Background(), r)
			if err == nil || !strings.Contains(err.Error(), "is a leftover worktree whose .git file points to another location") {
				t.Errorf("%s: err = %v", admin, err)
			}
			if _, err := os.Stat(filepath.Join(d, "x.txt")); err != nil {
				t.Errorf("the folder was touched: %v", err)
			}
		}
	})
}

// The folder of the name must be one of the repository's own worktrees,
// reached without links; git is not run on anything else.
func TestResumeRefused(t *testing.T) {
	needGit(t)
	outside := tempDir(t)
	for _, tc := range []struct {
		name, want string
		setup      func(t *testing.T, ws string)
	}{
		{"fr", "belongs to a different repository", func(t *testing.T, ws string) {
			git(t, ws, "clone", "-q", ws, filepath.Join(ws, "sub"))
			git(t, filepath.Join(ws, "sub"), "worktree", "add", "-q", "-b", "worktree-fr", "../.claude/worktrees/fr")
		}},
		{"fo", "belongs to a different repository", func(t *testing.T, ws string) {
			// records copied outside the workspace, the .git pointed there
			o := filepath.Join(outside, "fo")
			git(t, outside, "init", "-q", "-b", "main", o)
			git(t, ws, "worktree", "add", "-q", "-b", "worktree-fo", ".claude/worktrees/fo")
			os.WriteFile(filepath.Join(ws, ".claude/worktrees/fo/.git"), []byte("gitdir: "+filepath.Join(o, ".git")+"\n"), 0o644)
		}},
		{"fl", "belongs to a different repository", func(t *testing.T, ws string) {
			// the records themselves a link to records elsewhere
			git(t, ws, "worktree", "add", "-q", "-b", "worktree-fl", ".claude/worktrees/fl")
			admin := filepath.Join(ws, ".git", "worktrees", "fl")
			os.Rename(admin, filepath.Join(outside, "fl-admin"))
			os.Symlink(filepath.Join(outside, "fl-admin"), admin)
		}},
		{"cd", "belongs to a different repository", func(t *testing.T, ws string) {
			// the records' commondir names another repository in the workspace
			git(t, ws, "clone", "-q", ws, filepath.Join(ws, "other"))
			git(t, ws, "worktree", "add", "-q", "-b", "worktree-cd", ".claude/worktrees/cd")
			os.WriteFile(filepath.Join(ws, ".git", "worktrees", "cd", "commondir"), []byte(filepath.Join(ws, "other", ".git")+"\n"), 0o644)
		}},
		{"cw", "git resolves its working tree to ", func(t *testing.T, ws string) {
			// a core.worktree redirect in the worktree's own configuration
			git(t, ws, "worktree", "add", "-q", "-b", "worktree-cw", ".claude/worktrees/cw")
			git(t, ws, "config", "extensions.worktreeConfig", "true")
			git(t, filepath.Join(ws, ".claude/worktrees/cw"), "config", "--worktree", "core.worktree", ws)
		}},
		{"ln", "Cannot create worktree: .claude/worktrees/ln in the repository is a symlink.", func(t *testing.T, ws string) {
			git(t, ws, "worktree", "add", "-q", "-b", "worktree-ln", "wt/ln")
			os.MkdirAll(filepath.Join(ws, ".claude", "worktrees"), 0o755)
			os.Symlink("../../wt/ln", filepath.Join(ws, ".claude", "worktrees", "ln"))
		}},
		{"lp", "Cannot create worktree: .claude/worktrees in the repository is a symlink.", func(t *testing.T, ws string) {
			git(t, ws, "worktree", "add", "-q", "-b", "worktree-lp", "wt/lp")
			os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
			os.Symlink("../wt", filepath.Join(ws, ".claude", "worktrees"))
		}},
		{"lo", "Cannot create worktree: .claude in the repository is a symlink.", func(t *testing.T, ws string) {
			os.MkdirAll(filepath.Join(outside, "c", "worktrees", "lo"), 0o755)
			os.Symlink(filepath.Join(outside, "c"), filepath.Join(ws, ".claude"))
		}},
		{"gl", `branch "worktree-gl" for worktree "gl" is already checked out elsewhere in this repository.`, func(t *testing.T, ws string) {
			// a .git that is a link is no worktree's: git refuses the name
			git(t, ws, "worktree", "add", "-q", "-b", "worktree-gl", ".claude/worktrees/gl")
			d := filepath.Join(ws, ".claude/worktrees/gl")
			os.Rename(filepath.Join(d, ".git"), filepath.Join(ws, "gl.gitfile"))
			os.Symlink("../../../gl.gitfile", filepath.Join(d, ".git"))
		}},
		{"pd", `worktree "pd" already exists at `, func(t *testing.T, ws string) {
			os.MkdirAll(filepath.Join(ws, ".claude/worktrees/pd"), 0o755)
			os.WriteFile(filepath.Join(ws, ".claude/worktrees/pd/x.txt"), []byte("keep"), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := tempDir(t)
			newRepo(t, ws)
			tc.setup(t, ws)
			r := req(ws)
			r.Name = tc.name
			wt, err := NewManager(Options{}).Create(context.Background(), r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("= %+v, %v; want %q", wt, err, tc.want)
			}
		})
	}
	// An empty folder of the name is no worktree: git makes one there.
	ws := tempDir(t)
	newRepo(t, ws)
	os.MkdirAll(filepath.Join(ws, ".claude/worktrees/ed"), 0o755)
	r := req(ws)
	r.Name = "ed"
	if wt, err := NewManager(Options{}).Create(context.Background(), r); err != nil || wt.Resumed {
		t.Errorf("empty folder: %+v, %v", wt, err)
	}
}
