package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// commitFile commits a new file in dir.
func commitFile(t *testing.T, dir, name, msg string) {
	t.Helper()
	os.WriteFile(filepath.Join(dir, name), []byte(msg+"\n"), 0o644)
	git(t, dir, "add", name)
	git(t, dir, "commit", "-qm", msg)
}

// withOrigin gives the repository in ws an origin (a bare repository in
// another directory) that has one commit the local main lacks, while main
// has one origin lacks.
func withOrigin(t *testing.T, ws string) (origin, other string) {
	t.Helper()
	dir := tempDir(t)
	origin, other = filepath.Join(dir, "origin.git"), filepath.Join(dir, "other")
	git(t, dir, "init", "-q", "--bare", "-b", "main", origin)
	git(t, ws, "remote", "add", "origin", origin)
	git(t, ws, "push", "-q", "origin", "main")
	git(t, dir, "clone", "-q", origin, other)
	commitFile(t, other, "remote.txt", "remote-ahead")
	git(t, other, "push", "-q", "origin", "main")
	commitFile(t, ws, "local.txt", "local-ahead")
	return origin, other
}

func subjects(t *testing.T, dir string) string {
	t.Helper()
	return strings.TrimSpace(git(t, dir, "log", "--format=%s"))
}

// TestBaseRef: fresh starts from origin's default branch, fetched when
// the last fetch is old (or there is no copy); head from the local HEAD;
// without origin, fresh falls back to HEAD.
func TestBaseRef(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	create := func(t *testing.T, m *Manager, ws, name string) Worktree {
		t.Helper()
		r := req(ws)
		r.Name = name
		wt, err := m.Create(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return wt
	}
	t.Run("no origin", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		commitFile(t, ws, "b.txt", "second")
		wt := create(t, NewManager(Options{}), ws, "x")
		if got := subjects(t, wt.Path); got != "second\ninit" {
			t.Errorf("log %q", got)
		}
	})
	t.Run("fresh fetches origin", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		withOrigin(t, ws)
		wt := create(t, NewManager(Options{}), ws, "x")
		if got := subjects(t, wt.Path); got != "remote-ahead\ninit" {
			t.Errorf("log %q", got)
		}
		if up := git(t, wt.Path, "status", "-sb"); strings.Contains(up, "...") {
			t.Errorf("the branch tracks its base: %q", up)
		}
	})
	t.Run("fresh keeps a recent fetch", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		_, other := withOrigin(t, ws)
		git(t, ws, "fetch", "-q", "origin")
		commitFile(t, other, "r2.txt", "remote-ahead2")
		git(t, other, "push", "-q", "origin", "main")
		m := NewManager(Options{})
		if got := subjects(t, create(t, m, ws, "x").Path); got != "remote-ahead\ninit" {
			t.Errorf("recent fetch: log %q", got)
		}
		old := time.Now().Add(-25 * time.Hour)
		os.Chtimes(filepath.Join(ws, ".git", "FETCH_HEAD"), old, old)
		if got := subjects(t, create(t, m, ws, "y").Path); got != "remote-ahead2\nremote-ahead\ninit" {
			t.Errorf("day-old fetch: log %q", got)
		}
	})
	t.Run("head", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		withOrigin(t, ws)
		if got := subjects(t, create(t, NewManager(Options{BaseRef: BaseHead}), ws, "x").Path); got != "local-ahead\ninit" {
			t.Errorf("log %q", got)
		}
	})
	t.Run("workspace setting", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		withOrigin(t, ws)
		os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
		os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(`{"worktree":{"baseRef":"head"}}`), 0o644)
		if got := subjects(t, create(t, NewManager(Options{}), ws, "x").Path); got != "remote-ahead\ninit" {
			t.Errorf("workspace settings not enabled: log %q", got)
		}
		if got := subjects(t, create(t, NewManager(Options{WorkspaceSettings: true}), ws, "y").Path); got != "local-ahead\ninit" {
			t.Errorf("workspace settings: log %q", got)
		}
		// The operator's setting wins.
		if got := subjects(t, create(t, NewManager(Options{WorkspaceSettings: true, BaseRef: BaseFresh}), ws, "z").Path); got != "remote-ahead\ninit" {
			t.Errorf("operator over workspace: log %q", got)
		}
	})
	t.Run("origin HEAD names the default branch", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		dir := tempDir(t)
		origin := filepath.Join(dir, "origin.git")
		git(t, dir, "init", "-q", "--bare", "-b", "trunk", origin)
		git(t, ws, "remote", "add", "origin", origin)
		git(t, ws, "push", "-q", "origin", "main:trunk")
		git(t, ws, "remote", "set-head", "origin", "trunk")
		commitFile(t, ws, "local.txt", "local-ahead")
		m := NewManager(Options{})
		if b := m.defaultBranch(ctx, req(ws), ws); b != "trunk" {
			t.Fatalf("default branch %q", b)
		}
		if got := subjects(t, create(t, m, ws, "x").Path); got != "init" {
			t.Errorf("log %q", got)
		}
	})
	t.Run("origin unreachable", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		git(t, ws, "remote", "add", "origin", filepath.Join(tempDir(t), "missing.git"))
		commitFile(t, ws, "local.txt", "local-ahead")
		if got := subjects(t, create(t, NewManager(Options{}), ws, "x").Path); got != "local-ahead\ninit" {
			t.Errorf("log %q", got)
		}
	})
	t.Run("the branch exists", func(t *testing.T) {
		ws := tempDir(t)
		newRepo(t, ws)
		git(t, ws, "checkout", "-q", "-b", "worktree-x")
		commitFile(t, ws, "y.txt", "on-branch")
		git(t, ws, "checkout", "-q", "main")
		// As Claude Code's git worktree add -B: reset to the base.
		if got := subjects(t, create(t, NewManager(Options{}), ws, "x").Path); got != "init" {
			t.Errorf("log %q", got)
		}
	})
	t.Run("no commit", func(t *testing.T) {
		ws := tempDir(t)
		git(t, ws, "init", "-q", "-b", "main")
		for ref, want := range map[string]string{BaseFresh: `Failed to resolve base branch "HEAD": git rev-parse returned no commit`, BaseHead: "Failed to resolve HEAD in " + ws + ": git rev-parse"} {
			r := req(ws)
			r.Name = "x"
			if _, err := NewManager(Options{BaseRef: ref}).Create(ctx, r); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s: %v", ref, err)
			}
		}
	})
}

// TestFetchRunsNoProgramOfTheRepository: the repository's configuration
// (which the session writes) chooses no program the fetch runs: not the
// upload-pack of remote.origin.uploadpack, not an ext:: remote helper.
func TestFetchRunsNoProgramOfTheRepository(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	ws := tempDir(t)
	newRepo(t, ws)
	withOrigin(t, ws)
	marker := filepath.Join(tempDir(t), "ran")
	script := filepath.Join(tempDir(t), "upload-pack")
	os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\nexec git-upload-pack \"$@\"\n"), 0o755)
	git(t, ws, "config", "remote.origin.uploadpack", script)
	r := req(ws)
	r.Name = "x"
	wt, err := NewManager(Options{}).Create(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := subjects(t, wt.Path); got != "remote-ahead\ninit" {
		t.Errorf("log %q: the fetch did not run", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the configured upload-pack ran")
	}
	git(t, ws, "remote", "set-url", "origin", "ext::sh -c touch% "+marker)
	git(t, ws, "update-ref", "-d", "refs/remotes/origin/main")
	r.Name = "y"
	if wt, err = NewManager(Options{}).Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the ext:: helper ran")
	}
	if got := subjects(t, wt.Path); got != "local-ahead\ninit" {
		t.Errorf("log %q, want the local HEAD after the refused fetch", got)
	}
}

func TestParseSettings(t *testing.T) {
	for _, tc := range []struct {
		in, ref, ignored, err string
	}{
		{`{}`, "", "", ""},
		{`{"worktree":{"baseRef":"head","sparsePaths":["a"]}}`, "head", "worktree.sparsePaths", ""},
		{`{"worktree":{"baseRef":"fresh"}}`, "fresh", "", ""},
		{`{"worktree":{"baseRef":"HEAD"}}`, "", "", `worktree.baseRef: must be "fresh" or "head", not "HEAD"`},
		{`{"worktree":{"baseRef":1}}`, "", "", "worktree.baseRef: must be"},
		{`{"worktree":"head"}`, "", "", "worktree: must be an object"},
	} {
		s, ignored, err := ParseSettings([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || s.BaseRef != tc.ref || strings.Join(ignored, ",") != tc.ignored {
			t.Errorf("%s: %+v %v %v", tc.in, s, ignored, err)
		}
	}
}
