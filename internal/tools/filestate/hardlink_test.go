package filestate_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/edit"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/tools/grep"
	"github.com/toold/toold/internal/tools/multiedit"
	"github.com/toold/toold/internal/tools/notebookedit"
	"github.com/toold/toold/internal/tools/read"
	"github.com/toold/toold/internal/tools/write"
	"github.com/toold/toold/internal/workspace"
)

// canaryNotebook is outside content every file tool could act on: a
// notebook, so that NotebookEdit can, with a marker the text tools match.
const canaryNotebook = `{"cells": [{"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {}, "outputs": [], "source": "CANARY"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
`

var linkTools = []toolCase{
	{"Read", read.New(read.Options{}), func(p string) map[string]any { return map[string]any{"file_path": p} }},
	{"Write", write.New(), func(p string) map[string]any { return map[string]any{"file_path": p, "content": pwned} }},
	{"Edit", edit.New(), func(p string) map[string]any {
		return map[string]any{"file_path": p, "old_string": "CANARY", "new_string": "PWNED"}
	}},
	{"MultiEdit", multiedit.New(), func(p string) map[string]any {
		return map[string]any{"file_path": p, "edits": []any{map[string]any{"old_string": "CANARY", "new_string": "PWNED"}}}
	}},
	{"NotebookEdit", notebookedit.New(), func(p string) map[string]any {
		return map[string]any{"notebook_path": p, "cell_id": "c1", "new_source": "PWNED"}
	}},
}

// grepTools search the directory holding a link and the link by name,
// with both engines.
func grepTools(t *testing.T) []toolCase {
	var out []toolCase
	engines := []struct {
		name string
		opts grep.Options
	}{{"go", grep.Options{PureGo: true}}}
	if _, err := exec.LookPath("rg"); err == nil {
		engines = append(engines, struct {
			name string
			opts grep.Options
		}{"rg", grep.Options{}})
	} else {
		t.Log("rg is not installed: only the built-in Grep engine is tried")
	}
	for _, e := range engines {
		for _, mode := range []string{"content", "files_with_matches", "count"} {
			out = append(out,
				toolCase{"Grep-" + e.name + "-" + mode + "-dir", grep.New(e.opts), func(p string) map[string]any {
					return map[string]any{"pattern": "CANARY", "path": filepath.Dir(p), "output_mode": mode}
				}},
				toolCase{"Grep-" + e.name + "-" + mode + "-file", grep.New(e.opts), func(p string) map[string]any {
					return map[string]any{"pattern": "CANARY", "path": p, "output_mode": mode}
				}})
		}
	}
	return out
}

type linkCase struct {
	name string
	// make puts a file at the returned path, inside, that shares its
	// inode with canary (or, "both inside", with another inside file),
	// after the model may have read what was there.
	make func(t *testing.T, env *tool.Env, canary string) string
}

var linkCases = []linkCase{
	{"linked before the session", func(t *testing.T, env *tool.Env, canary string) string {
		p := env.Cwd + "/hard.ipynb"
		must(t, os.Link(canary, p))
		return p
	}},
	{"swapped in after a Read of the same content", func(t *testing.T, env *tool.Env, canary string) string {
		// The model read a file with the canary's very content: the
		// stamp's hash matches, only the link count tells.
		p := env.Cwd + "/hard.ipynb"
		must(t, os.WriteFile(p, []byte(canaryNotebook), 0o644))
		if _, err := tooltest.Run(t, read.New(read.Options{}), env, map[string]any{"file_path": p}); err != nil {
			t.Fatal(err)
		}
		must(t, os.Link(canary, p+".new"))
		must(t, os.Rename(p+".new", p))
		return p
	}},
	{"in a subdirectory", func(t *testing.T, env *tool.Env, canary string) string {
		must(t, os.MkdirAll(env.Cwd+"/sub/deeper", 0o755))
		p := env.Cwd + "/sub/deeper/hard.ipynb"
		must(t, os.Link(canary, p))
		return p
	}},
	{"through a symlink inside", func(t *testing.T, env *tool.Env, canary string) string {
		must(t, os.Link(canary, env.Cwd+"/hard-target.ipynb"))
		p := env.Cwd + "/via-link.ipynb"
		must(t, os.Symlink("hard-target.ipynb", p))
		return p
	}},
	{"both names inside", func(t *testing.T, env *tool.Env, canary string) string {
		// Decided: refused too. Nothing in the file says where its other
		// names are.
		must(t, os.WriteFile(env.Cwd+"/a.ipynb", []byte(canaryNotebook), 0o644))
		p := env.Cwd + "/b.ipynb"
		must(t, os.Link(env.Cwd+"/a.ipynb", p))
		return p
	}},
}

// TestHardLinksRefused: no file tool reads or changes a file with more
// than one hard link, whichever way it came there; the outside file stays
// as it was and its content never reaches a result.
func TestHardLinksRefused(t *testing.T) {
	all := append(append([]toolCase{}, linkTools...), grepTools(t)...)
	for _, lc := range linkCases {
		for _, tc := range all {
			t.Run(lc.name+"/"+tc.name, func(t *testing.T) {
				env, st, _ := tooltest.Env(t)
				canary := filepath.Join(filepath.Dir(env.Cwd), "canary-"+filepath.Base(env.Cwd)+".ipynb")
				must(t, os.WriteFile(canary, []byte(canaryNotebook), 0o644))
				t.Cleanup(func() { os.Remove(canary) })
				p := lc.make(t, env, canary)
				// Vouch for the canary's content as if it had been read, so
				// that only the link rule can stop a write.
				if real, err := filepath.EvalSymlinks(p); err == nil {
					fi, _ := os.Stat(real)
					st.RecordRead(context.Background(), real, filestate.StampContent(fi, []byte(canaryNotebook)))
				}
				before := snapshot(t, canary)
				res, err := tooltest.Run(t, tc.tool, env, tc.in(p))
				if after := snapshot(t, canary); after != before {
					t.Fatalf("the linked file changed:\n%s", after)
				}
				text := ""
				if res != nil {
					text = tooltest.Text(res)
				}
				if strings.Contains(text, "CANARY") || (err != nil && strings.Contains(err.Error(), "CANARY")) {
					t.Fatalf("%s disclosed the linked content: %q %v", tc.name, text, err)
				}
				if strings.HasPrefix(tc.name, "Grep") && !strings.HasSuffix(tc.name, "-file") {
					return // a directory search leaves the file out
				}
				if !errors.Is(err, workspace.ErrHardLink) || !strings.Contains(err.Error(), "hard links") {
					t.Fatalf("%s = %q, %v; want a hard-link refusal", tc.name, text, err)
				}
				if !strings.Contains(err.Error(), p) && !strings.Contains(err.Error(), "hard-target.ipynb") {
					t.Errorf("the refusal does not name the path: %v", err)
				}
			})
		}
	}
}

// TestHardLinkInAdditionalDirectory: the rule holds in every directory of
// the session, not only the primary one.
func TestHardLinkInAdditionalDirectory(t *testing.T) {
	extra, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	env, st, _ := tooltest.Env(t, extra)
	canary := filepath.Join(filepath.Dir(extra), "canary-"+filepath.Base(extra)+".ipynb")
	must(t, os.WriteFile(canary, []byte(canaryNotebook), 0o644))
	t.Cleanup(func() { os.Remove(canary) })
	p := extra + "/hard.ipynb"
	must(t, os.Link(canary, p))
	fi, _ := os.Stat(p)
	st.RecordRead(context.Background(), p, filestate.StampContent(fi, []byte(canaryNotebook)))
	for _, tc := range linkTools {
		res, err := tooltest.Run(t, tc.tool, env, tc.in(p))
		if !errors.Is(err, workspace.ErrHardLink) || res != nil {
			t.Errorf("%s in an additional directory = %v, %v", tc.name, res, err)
		}
	}
	if b, _ := os.ReadFile(canary); string(b) != canaryNotebook {
		t.Fatalf("canary changed: %q", b)
	}
}

// TestOwnFilesStayUsable: a file the tools wrote has one link, and every
// tool works on it; a hard link the model cannot see (another name of a
// file elsewhere) does not spoil files around it.
func TestOwnFilesStayUsable(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	p := env.Cwd + "/nb.ipynb"
	steps := []struct {
		tc toolCase
		in map[string]any
	}{
		{linkTools[1], map[string]any{"file_path": p, "content": canaryNotebook}},
		{linkTools[0], map[string]any{"file_path": p}},
		// (Edit refuses a notebook, as in Claude Code.)
		{linkTools[3], map[string]any{"file_path": p, "edits": []any{map[string]any{"old_string": "CANARY", "new_string": "TWO"}}}},
		{linkTools[4], map[string]any{"notebook_path": p, "cell_id": "c1", "new_source": "THREE"}},
	}
	for _, s := range steps {
		if _, err := tooltest.Run(t, s.tc.tool, env, s.in); err != nil {
			t.Fatalf("%s: %v", s.tc.name, err)
		}
	}
	fi, err := os.Stat(p)
	must(t, err)
	if n := workspace.Links(fi); n != 1 {
		t.Fatalf("a written file has %d links", n)
	}
	leftovers, _ := filepath.Glob(env.Cwd + "/.*toold*")
	if len(leftovers) > 0 {
		t.Fatalf("lock or temporary files left: %v", leftovers)
	}
}

// TestGitCloneLocal: `git clone --local` hard-links the object files of
// .git/objects with the source repository (outside the workspace) and
// checks the work tree out as new files. The work tree reads and edits as
// usual; the linked objects are refused.
func TestGitCloneLocal(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	env, _, _ := tooltest.Env(t)
	src := t.TempDir()
	gitRun := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun(src, "init", "-q")
	must(t, os.WriteFile(src+"/main.go", []byte("package main\n"), 0o644))
	gitRun(src, "add", ".")
	gitRun(src, "commit", "-qm", "x")
	gitRun(env.Cwd, "clone", "-q", "--local", src, "clone")

	res, err := tooltest.Run(t, read.New(read.Options{}), env, map[string]any{"file_path": env.Cwd + "/clone/main.go"})
	if err != nil || !strings.Contains(tooltest.Text(res), "package main") {
		t.Fatalf("Read of a checked-out file: %v %v", res, err)
	}
	if _, err := tooltest.Run(t, edit.New(), env, map[string]any{"file_path": env.Cwd + "/clone/main.go", "old_string": "main", "new_string": "app"}); err != nil {
		t.Fatalf("Edit of a checked-out file: %v", err)
	}
	var linked []string
	filepath.WalkDir(env.Cwd+"/clone/.git/objects", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil && workspace.Links(fi) > 1 {
				linked = append(linked, p)
			}
		}
		return nil
	})
	if len(linked) == 0 {
		t.Fatal("git clone --local linked no object file (different file systems?)")
	}
	for _, p := range linked {
		if _, err := tooltest.Run(t, read.New(read.Options{}), env, map[string]any{"file_path": p}); !errors.Is(err, workspace.ErrHardLink) {
			t.Fatalf("Read of the linked object %s = %v", p, err)
		}
	}
	if b, _ := os.ReadFile(src + "/main.go"); string(b) != "package main\n" {
		t.Fatalf("the source repository changed: %q", b)
	}
}
