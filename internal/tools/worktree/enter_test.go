package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// enterFixture is a workspace holding a repository with linked worktrees:
// side (under .claude/worktrees), w2 (beside the checkout) and det (a
// detached one under .claude/worktrees).
func enterFixture(t *testing.T) string {
	t.Helper()
	ws := tempDir(t)
	newRepo(t, ws)
	git(t, ws, "worktree", "add", "-q", "-b", "side", ".claude/worktrees/side")
	git(t, ws, "worktree", "add", "-q", "-b", "w2", "w2")
	git(t, ws, "worktree", "add", "-q", "--detach", ".claude/worktrees/det")
	return ws
}

func enterMsg(t *testing.T, err error) string {
	t.Helper()
	var ee *EnterError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v (%T), want an EnterError", err, err)
	}
	return ee.Msg
}

// TestEnter: what Claude Code accepts and refuses, in its words.
func TestEnter(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	m := NewManager(Options{})
	ws := enterFixture(t)
	r := req(ws)

	for _, p := range []string{ws + "/.claude/worktrees/side", ".claude/worktrees/side/", "w2"} {
		e, err := m.Enter(ctx, r, p, false)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if want := filepath.Join(ws, filepath.Clean(strings.TrimPrefix(p, ws+"/"))); e.Path != want || e.GitDir != filepath.Join(ws, ".git") || e.Repo != ws || e.Nested {
			t.Errorf("%s: %+v", p, e)
		}
	}
	if e, err := m.Enter(ctx, r, ws+"/.claude/worktrees/side", false); err != nil || e.Branch != "side" {
		t.Errorf("branch: %+v %v", e, err)
	}
	if e, err := m.Enter(ctx, r, ws+"/.claude/worktrees/det", false); err != nil || e.Branch != "" {
		t.Errorf("detached: %+v %v", e, err)
	}

	os.MkdirAll(filepath.Join(ws, "plain"), 0o755)
	os.WriteFile(filepath.Join(ws, "file.txt"), []byte("x"), 0o644)
	for p, want := range map[string]string{
		ws + "/plain":                    "Cannot enter worktree: " + ws + "/plain is not a registered worktree of " + ws + ". Run 'git -C " + ws + " worktree list' to see registered worktrees.",
		ws + "/file.txt":                 "Cannot enter worktree: " + ws + "/file.txt is not a registered worktree of " + ws + ".",
		ws + "/nope":                     "Cannot enter worktree: " + ws + "/nope: ENOENT: no such file or directory, realpath '" + ws + "/nope'",
		"file.txt/x":                     "Cannot enter worktree: " + ws + "/file.txt/x: ENOTDIR: not a directory, realpath '" + ws + "/file.txt/x'",
		ws:                               "Cannot enter worktree: " + ws + " is the main working tree, not a linked worktree.",
		ws + "/.claude/worktrees/side/.": "",
		ws + "/.claude":                  "Cannot enter worktree: " + ws + "/.claude is not a registered worktree of " + ws + ".",
		ws + "/.claude/worktrees":        "Cannot enter worktree: " + ws + "/.claude/worktrees is not under " + ws + "/.claude/worktrees. Switching from this session",
	} {
		_, err := m.Enter(ctx, r, p, false)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", p, err)
			}
			continue
		}
		if got := enterMsg(t, err); !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", p, got, want)
		}
	}
	// From inside a worktree: the session's own directory, and only
	// worktrees under .claude/worktrees.
	in := req(ws)
	in.Cwd = ws + "/.claude/worktrees/side"
	if got := enterMsg(t, second(m.Enter(ctx, in, ".", true))); got != "Cannot enter worktree: "+in.Cwd+" is the current working directory." {
		t.Errorf("current: %s", got)
	}
	if got := enterMsg(t, second(m.Enter(ctx, in, ws+"/w2", true))); got != "Cannot enter worktree: "+ws+"/w2 is not under "+ws+"/.claude/worktrees. Switching from this session is limited to worktrees managed by Claude Code (created under .claude/worktrees/ of this repository)." {
		t.Errorf("switch outside: %s", got)
	}
	if e, err := m.Enter(ctx, in, ws+"/.claude/worktrees/det", true); err != nil || e.Repo != ws {
		t.Errorf("switch: %+v %v", e, err)
	}
	// Not a repository at all.
	plain := tempDir(t)
	if got := enterMsg(t, second(m.Enter(ctx, req(plain), plain, false))); got != "Cannot enter an existing worktree: the current directory is not in a git repository." {
		t.Errorf("no repository: %s", got)
	}
}

func second[T any](_ T, err error) error { return err }

// TestEnterNested: a worktree of a repository nested in the session's is
// entered on first entry, owned by the nested one.
func TestEnterNested(t *testing.T) {
	needGit(t)
	ws := tempDir(t)
	newRepo(t, ws)
	sub := filepath.Join(ws, "sub")
	newRepo(t, sub)
	git(t, sub, "worktree", "add", "-q", "-b", "n", ".claude/worktrees/n")
	e, err := NewManager(Options{}).Enter(context.Background(), req(ws), sub+"/.claude/worktrees/n", false)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Nested || e.Repo != sub || e.GitDir != filepath.Join(sub, ".git") || e.Branch != "n" {
		t.Errorf("entered %+v", e)
	}
	// Not from a worktree: there, only this repository's own.
	in := req(ws)
	git(t, ws, "worktree", "add", "-q", "-b", "a", ".claude/worktrees/a")
	in.Cwd = ws + "/.claude/worktrees/a"
	if _, err := NewManager(Options{}).Enter(context.Background(), in, sub+"/.claude/worktrees/n", true); err == nil {
		t.Error("switched into a nested repository's worktree")
	}
}

// TestEnterContainment: whatever Claude Code would accept, a worktree
// that is or leads outside the workspace is refused, and git is not run
// on it.
func TestEnterContainment(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	m := NewManager(Options{})
	ws := enterFixture(t)
	outside := tempDir(t)
	git(t, ws, "worktree", "add", "-q", "-b", "out", outside+"/out")
	os.Symlink(outside+"/out", filepath.Join(ws, "linkout"))
	os.Symlink(ws+"/.claude/worktrees/side", filepath.Join(ws, "linkin"))
	os.Symlink(outside+"/out", filepath.Join(ws, ".claude", "worktrees", "lo"))
	other := filepath.Join(outside, "other")
	newRepo(t, other)
	git(t, other, "worktree", "add", "-q", "-b", "f", ws+"/foreign")
	git(t, other, "worktree", "add", "-q", "-b", "f2", ws+"/.claude/worktrees/f2")
	r := req(ws)

	var out *OutsideError
	for _, p := range []string{outside + "/out", ws + "/linkout"} {
		if _, err := m.Enter(ctx, r, p, false); !errors.As(err, &out) || !out.Enter || out.Path != outside+"/out" {
			t.Errorf("%s: %v", p, err)
		}
	}
	if !strings.HasPrefix(out.Error(), "Cannot enter worktree: the worktree ("+outside+"/out) is outside the session's workspace.") {
		t.Errorf("text %q", out.Error())
	}
	if e, err := m.Enter(ctx, r, ws+"/linkin", false); err != nil || e.Path != ws+"/.claude/worktrees/side" {
		t.Errorf("a link inside: %+v %v", e, err)
	}
	for p, want := range map[string]string{
		ws + "/.claude/worktrees/lo": "Cannot enter worktree: " + ws + "/.claude/worktrees/lo is not under " + ws + "/.claude/worktrees.",
		ws + "/foreign":              "Cannot enter worktree: " + ws + "/foreign is not a registered worktree of " + ws + ".",
		ws + "/.claude/worktrees/f2": "Cannot enter worktree: " + ws + "/.claude/worktrees/f2 is not a linked worktree of " + ws + ".",
	} {
		if got := enterMsg(t, second(m.Enter(ctx, r, p, false))); !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", p, got, want)
		}
	}
	// A worktree registered here whose .git was pointed at another
	// repository's records.
	os.WriteFile(filepath.Join(ws, "w2", ".git"), []byte("gitdir: "+other+"/.git/worktrees/f\n"), 0o644)
	if got := enterMsg(t, second(m.Enter(ctx, r, ws+"/w2", false))); !strings.HasPrefix(got, "Cannot enter worktree: "+ws+"/w2 is not a linked worktree of "+ws+".") {
		t.Errorf("repointed .git: %s", got)
	}
	// A workspace that is a subtree of a larger repository.
	sub := filepath.Join(ws, "tenant")
	os.MkdirAll(sub, 0o755)
	if _, err := m.Enter(ctx, req(sub), ws+"/.claude/worktrees/side", false); !errors.As(err, &out) || out.What != "git repository" {
		t.Errorf("repository above the workspace: %v", err)
	}
	// A .claude/worktrees that is a link: nothing under it is managed.
	ws2 := tempDir(t)
	newRepo(t, ws2)
	real := filepath.Join(ws2, "real")
	os.MkdirAll(real, 0o755)
	os.MkdirAll(filepath.Join(ws2, ".claude"), 0o755)
	os.Symlink(real, filepath.Join(ws2, ".claude", "worktrees"))
	git(t, ws2, "worktree", "add", "-q", "-b", "x", real+"/x")
	if got := enterMsg(t, second(m.Enter(ctx, req(ws2), ws2+"/.claude/worktrees/x", false))); got != "Cannot enter worktree: "+ws2+"/.claude/worktrees resolves to "+real+"; the managed worktrees directory must not be a symlink." {
		t.Errorf("linked managed directory: %s", got)
	}
}

func TestEnterPrunable(t *testing.T) {
	needGit(t)
	ws := tempDir(t)
	newRepo(t, ws)
	git(t, ws, "worktree", "add", "-q", "-b", "p", "w3")
	os.RemoveAll(filepath.Join(ws, "w3"))
	os.MkdirAll(filepath.Join(ws, "w3"), 0o755)
	got := enterMsg(t, second(NewManager(Options{}).Enter(context.Background(), req(ws), ws+"/w3", false)))
	if got != "Cannot enter worktree: "+ws+"/w3 is marked prunable by git (its directory or administrative files are missing or broken)." {
		t.Errorf("prunable: %s", got)
	}
}

// TestManagedPath is the permission side: only what leads into the
// repository's own .claude/worktrees enters without asking.
func TestManagedPath(t *testing.T) {
	needGit(t)
	ws := enterFixture(t)
	os.Symlink(ws+"/.claude/worktrees/side", filepath.Join(ws, "linkin"))
	outside := tempDir(t)
	os.Symlink(outside, filepath.Join(ws, ".claude", "worktrees", "lo"))
	sub := filepath.Join(ws, "sub")
	newRepo(t, sub)
	git(t, sub, "worktree", "add", "-q", "-b", "n", ".claude/worktrees/n")
	side := ws + "/.claude/worktrees/side"
	os.MkdirAll(side+"/sub", 0o755)
	for _, tc := range []struct {
		cwd, path string
		managed   bool
	}{
		{ws, side, true}, {ws, ".claude/worktrees/side", true}, {ws, "linkin", true},
		{ws, "w2", false}, {ws, ws + "/.claude/worktrees/lo", false}, {ws, ws + "/.claude/worktrees/none", false},
		{ws, ws + "/.claude/worktrees", false}, {ws, sub + "/.claude/worktrees/n", false},
		// From a linked worktree, the main checkout's .claude/worktrees.
		{side, ws + "/.claude/worktrees/det", true}, {side + "/sub", "../../det", true},
		{outside, side, false},
	} {
		if got := managedPath(tc.cwd, tc.path); got != tc.managed {
			t.Errorf("managedPath(%s, %s) = %v", tc.cwd, tc.path, got)
		}
	}
}
