package filestate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/edit"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/tools/read"
	"github.com/toold/toold/internal/tools/write"
	"github.com/toold/toold/internal/workspace"
)

const (
	canaryText = "CANARY secret outside the workspace\n"
	pwned      = "PWNED\n"
)

// fixture is a workspace with things outside it, next to it in the test's
// temporary directory, and symlinks inside that lead there.
type fixture struct {
	env    *tool.Env
	st     *tooltest.State
	ws     string // the workspace
	outer  string // its parent, outside
	canary string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	env, st, _ := tooltest.Env(t)
	f := &fixture{env: env, st: st, ws: env.Cwd, outer: filepath.Dir(env.Cwd)}
	f.canary = filepath.Join(f.outer, "canary.txt")
	must(t, os.WriteFile(f.canary, []byte(canaryText), 0o644))
	must(t, os.MkdirAll(filepath.Join(f.outer, "outdir"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.outer, "outdir", "secret.txt"), []byte(canaryText), 0o644))
	must(t, os.MkdirAll(f.ws+"-evil", 0o755))
	must(t, os.WriteFile(f.ws+"-evil/secret.txt", []byte(canaryText), 0o644))
	must(t, os.MkdirAll(f.ws+"/sub", 0o755))
	must(t, os.WriteFile(f.ws+"/inside.txt", []byte("inside\n"), 0o644))
	links := map[string]string{
		"abs-link":      f.canary,
		"rel-link":      "../canary.txt",
		"dir-link":      filepath.Join(f.outer, "outdir"),
		"dir-link-rel":  "../outdir",
		"dangling":      filepath.Join(f.outer, "new-outside.txt"),
		"dangling-rel":  "../new-outside-rel.txt",
		"dangling-dir":  filepath.Join(f.outer, "newdir") + "/",
		"chain1":        "chain2",
		"chain2":        "sub/chain3",
		"sub/chain3":    "../rel-link",
		"proc-link":     "/proc/self/root" + f.canary,
		"sub/deep-link": "../../canary.txt",
		"inside-link":   "inside.txt",
		"self-abs-link": f.ws + "/inside.txt",
	}
	for link, target := range links {
		must(t, os.Symlink(target, filepath.Join(f.ws, link)))
	}
	// Make every outside file look read: if containment failed, the
	// read-before-write rule would not stop Write or Edit.
	for _, p := range []string{f.canary, filepath.Join(f.outer, "outdir", "secret.txt"), f.ws + "-evil/secret.txt"} {
		fi, err := os.Stat(p)
		must(t, err)
		f.st.RecordRead(context.Background(), p, filestate.StampOf(fi))
	}
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot lists every file and link under dir with content or target.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		fmt.Fprintf(&b, "%s %v %v", p, fi.Mode(), fi.ModTime().UnixNano())
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&b, " -> %s", target)
		case d.Type().IsRegular():
			body, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", body)
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}

type toolCase struct {
	name string
	tool tool.Tool
	in   func(path string) map[string]any
}

var tools = []toolCase{
	{"Read", read.New(read.Options{}), func(p string) map[string]any { return map[string]any{"file_path": p} }},
	{"Write", write.New(), func(p string) map[string]any { return map[string]any{"file_path": p, "content": pwned} }},
	{"Edit", edit.New(), func(p string) map[string]any {
		return map[string]any{"file_path": p, "old_string": "CANARY", "new_string": "PWNED"}
	}},
	{"Edit-create", edit.New(), func(p string) map[string]any {
		return map[string]any{"file_path": p, "old_string": "", "new_string": pwned}
	}},
}

func TestContainment(t *testing.T) {
	paths := []struct {
		name string
		path func(f *fixture) string
	}{
		{"dot dot relative", func(f *fixture) string { return "../canary.txt" }},
		{"dot dot absolute", func(f *fixture) string { return f.ws + "/../canary.txt" }},
		{"dot dot from a subdirectory", func(f *fixture) string { return f.ws + "/sub/../../canary.txt" }},
		{"absolute outside", func(f *fixture) string { return f.canary }},
		{"absolute outside, new file", func(f *fixture) string { return f.outer + "/new-outside.txt" }},
		{"sibling prefix", func(f *fixture) string { return f.ws + "-evil/secret.txt" }},
		{"sibling prefix relative", func(f *fixture) string { return "../" + filepath.Base(f.ws) + "-evil/secret.txt" }},
		{"root", func(f *fixture) string { return "/etc/passwd" }},
		{"home", func(f *fixture) string { return "~/canary.txt" }},
		{"proc self root", func(f *fixture) string { return "/proc/self/root" + f.canary }},
		{"proc self root of a workspace file", func(f *fixture) string { return "/proc/self/root" + f.ws + "/inside.txt" }},
		{"symlink to the canary", func(f *fixture) string { return f.ws + "/abs-link" }},
		{"relative symlink to the canary", func(f *fixture) string { return f.ws + "/rel-link" }},
		{"symlink to the canary from a subdirectory", func(f *fixture) string { return f.ws + "/sub/deep-link" }},
		{"symlink to an outside directory", func(f *fixture) string { return f.ws + "/dir-link/secret.txt" }},
		{"relative symlink to an outside directory", func(f *fixture) string { return f.ws + "/dir-link-rel/secret.txt" }},
		{"new file under an outside directory link", func(f *fixture) string { return f.ws + "/dir-link/created.txt" }},
		{"trailing slash on a directory link", func(f *fixture) string { return f.ws + "/dir-link/" }},
		{"trailing slash on a file link", func(f *fixture) string { return f.ws + "/abs-link/" }},
		{"dangling symlink out", func(f *fixture) string { return f.ws + "/dangling" }},
		{"relative dangling symlink out", func(f *fixture) string { return f.ws + "/dangling-rel" }},
		{"file under a dangling directory link", func(f *fixture) string { return f.ws + "/dangling-dir/x.txt" }},
		{"symlink chain", func(f *fixture) string { return f.ws + "/chain1" }},
		{"symlink to proc self root", func(f *fixture) string { return f.ws + "/proc-link" }},
	}
	for _, tc := range tools {
		for _, pc := range paths {
			t.Run(tc.name+"/"+pc.name, func(t *testing.T) {
				f := newFixture(t)
				p := pc.path(f)
				before := snapshot(t, f.outer)
				res, err := tooltest.Run(t, tc.tool, f.env, tc.in(p))
				if err == nil {
					t.Fatalf("%s(%s) succeeded: %q", tc.name, p, tooltest.Text(res))
				}
				if !errors.Is(err, workspace.ErrOutside) {
					t.Fatalf("%s(%s) = %v; want an escape error", tc.name, p, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, "File tools may only access paths inside the session's directories ("+f.ws+")") ||
					!strings.HasPrefix(msg, strings.TrimSuffix(p, "/")+": ") {
					t.Errorf("message %q does not say that %s is outside the workspace", msg, p)
				}
				if after := snapshot(t, f.outer); after != before {
					t.Fatalf("files changed:\n%s\nwas:\n%s", after, before)
				}
			})
		}
	}
}

func TestContainmentMalformedPaths(t *testing.T) {
	for _, tc := range tools {
		for _, p := range []string{"inside\x00.txt", "/etc/passwd\x00", "in\nside.txt", ""} {
			t.Run(tc.name+"/"+fmt.Sprintf("%q", p), func(t *testing.T) {
				f := newFixture(t)
				before := snapshot(t, f.outer)
				res, err := tooltest.Run(t, tc.tool, f.env, tc.in(p))
				var te *tool.Error
				if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput {
					t.Fatalf("%s(%q) = %v, %v; want invalid input", tc.name, p, res, err)
				}
				if after := snapshot(t, f.outer); after != before {
					t.Fatalf("files changed")
				}
			})
		}
	}
}

func TestSymlinksInsideWork(t *testing.T) {
	for _, link := range []string{"inside-link", "self-abs-link"} {
		t.Run(link, func(t *testing.T) {
			f := newFixture(t)
			p := f.ws + "/" + link
			steps := []struct {
				tool tool.Tool
				in   map[string]any
				want string
			}{
				{read.New(read.Options{}), map[string]any{"file_path": p}, "1\tinside\n2\t"},
				{edit.New(), map[string]any{"file_path": p, "old_string": "inside", "new_string": "edited"},
					"The file " + p + " has been updated successfully. (file state is current in your context — no need to Read it back)"},
				{write.New(), map[string]any{"file_path": p, "content": "written\n"}, "The file " + p + " has been updated successfully. (file state is current in your context — no need to Read it back)"},
			}
			for _, s := range steps {
				res, err := tooltest.Run(t, s.tool, f.env, s.in)
				if err != nil {
					t.Fatalf("%s: %v", s.tool.Definition().Name, err)
				}
				if got := tooltest.Text(res); got != s.want {
					t.Fatalf("%s: %q, want %q", s.tool.Definition().Name, got, s.want)
				}
			}
			if body, _ := os.ReadFile(f.ws + "/inside.txt"); string(body) != "written\n" {
				t.Fatalf("inside.txt = %q", body)
			}
			if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s is no longer a symlink (%v)", link, err)
			}
		})
	}
}

// TestContainmentRace flips a symlink between a file inside and the canary
// outside while the tools use it: whatever the interleaving, the canary is
// never read or written.
func TestContainmentRace(t *testing.T) {
	f := newFixture(t)
	flip := f.ws + "/flip"
	flipDir := f.ws + "/flipdir"
	must(t, os.MkdirAll(f.ws+"/indir", 0o755))
	must(t, os.WriteFile(f.ws+"/indir/secret.txt", []byte("CANARY inside\n"), 0o644))
	before := snapshot(t, f.outer+"/outdir") + snapshot(t, f.canary)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		targets := [][2]string{{"inside.txt", f.canary}, {"indir", f.outer + "/outdir"}}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			for j, link := range []string{flip, flipDir} {
				tmp := fmt.Sprintf("%s.tmp%d", link, i)
				if err := os.Symlink(targets[j][i%2], tmp); err == nil {
					os.Rename(tmp, link)
				}
			}
		}
	}()
	for i := range 300 {
		for _, tc := range tools {
			p := flip
			if i%2 == 1 {
				p = flipDir + "/secret.txt"
			}
			// Keep the inside files writable for Write and Edit.
			for _, in := range []string{f.ws + "/inside.txt", f.ws + "/indir/secret.txt"} {
				if fi, err := os.Stat(in); err == nil {
					f.st.RecordRead(context.Background(), in, filestate.StampOf(fi))
				}
			}
			res, err := tooltest.Run(t, tc.tool, f.env, tc.in(p))
			if err == nil && strings.Contains(tooltest.Text(res), canaryText[:20]) {
				t.Fatalf("%s read the canary through %s", tc.name, p)
			}
		}
	}
	close(stop)
	wg.Wait()
	if after := snapshot(t, f.outer+"/outdir") + snapshot(t, f.canary); after != before {
		t.Fatalf("outside files changed:\n%s\nwas:\n%s", after, before)
	}
	if _, err := os.Lstat(f.outer + "/new-outside.txt"); err == nil {
		t.Fatal("a file was created outside")
	}
}
