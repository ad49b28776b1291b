package grep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/workspace"
)

// TestGrepContainment tries the spellings and links that could search
// outside the workspace. Files outside hold the canary string; it must
// never come back, and paths that name the outside must be refused.
func TestGrepContainment(t *testing.T) {
	env, ws, outside := corpus(t)
	evil := ws + "-evil"
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(evil) })
	os.WriteFile(filepath.Join(evil, "f.txt"), []byte("needle "+canary+"\n"), 0o644)
	link(t, "linkdir", filepath.Join(ws, "chain"))
	link(t, "/proc/self/root"+outside, filepath.Join(ws, "proclink"))
	link(t, filepath.Join(outside, "missing"), filepath.Join(ws, "danglingout"))
	// An ignore file that is a link out must not be read either (the
	// built-in engine refuses it; rg would only use it as rules).
	rel, _ := filepath.Rel(ws, outside)

	tests := []struct {
		name   string
		in     map[string]any
		escape bool
	}{
		{name: "walk over links", in: map[string]any{"pattern": canary, "output_mode": "content"}},
		{name: "walk, any line", in: map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 0}},
		{name: "walk, files", in: map[string]any{"pattern": "CANARY"}},
		{name: "walk, count", in: map[string]any{"pattern": ".", "output_mode": "count", "head_limit": 0}},
		{name: "glob into link", in: map[string]any{"pattern": "needle", "glob": "linkdir/**", "output_mode": "content"}},
		{name: "glob with dot dot", in: map[string]any{"pattern": "needle", "glob": "../**", "output_mode": "content"}},
		{name: "glob absolute", in: map[string]any{"pattern": "needle", "glob": outside + "/**", "output_mode": "content"}},
		{name: "multiline over links", in: map[string]any{"pattern": "needle[\\s\\S]*CANARY", "multiline": true}},
		{name: "absolute path outside", in: map[string]any{"pattern": "needle", "path": outside}, escape: true},
		{name: "canary file", in: map[string]any{"pattern": "needle", "path": filepath.Join(outside, "canary.txt")}, escape: true},
		{name: "dot dot", in: map[string]any{"pattern": "needle", "path": ".."}, escape: true},
		{name: "dot dot to canary", in: map[string]any{"pattern": "needle", "path": rel}, escape: true},
		{name: "sibling prefix", in: map[string]any{"pattern": "needle", "path": evil}, escape: true},
		{name: "proc self root", in: map[string]any{"pattern": "needle", "path": "/proc/self/root" + outside}, escape: true},
		{name: "root", in: map[string]any{"pattern": "needle", "path": "/"}, escape: true},
		{name: "file link out", in: map[string]any{"pattern": "needle", "path": "linkout.txt"}, escape: true},
		{name: "dir link out", in: map[string]any{"pattern": "needle", "path": "linkdir"}, escape: true},
		{name: "below dir link out", in: map[string]any{"pattern": "needle", "path": "linkdir/inner.go"}, escape: true},
		{name: "chain out", in: map[string]any{"pattern": "needle", "path": "chain"}, escape: true},
		{name: "proc link", in: map[string]any{"pattern": "needle", "path": "proclink"}, escape: true},
		{name: "dangling link out", in: map[string]any{"pattern": "needle", "path": "danglingout"}, escape: true},
		{name: "home", in: map[string]any{"pattern": "needle", "path": "~/x"}, escape: true},
	}
	for name, opts := range backends(t) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				res, err := tooltest.Run(t, New(opts), env, tt.in)
				if tt.escape {
					if !errors.Is(err, workspace.ErrOutside) {
						t.Fatalf("err = %v; want an escape error", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got := tooltest.Text(res)
				if strings.Contains(got, canary) || strings.Contains(got, outside) {
					t.Fatalf("outside content in output:\n%s", got)
				}
				for _, l := range []string{"linkout.txt", "linkdir/", "inlink.go", "insub/", "chain/", "proclink/"} {
					if strings.Contains(got, ws+"/"+l) {
						t.Errorf("searched through link %s:\n%s", l, got)
					}
				}
			})
		}
	}
}

// TestGrepIgnoreFileLinkedOut: a .gitignore that is a symbolic link to a
// file outside is not read by the built-in engine.
func TestGrepIgnoreFileLinkedOut(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "rules"), []byte("*.txt\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("needle\n"), 0o644)
	link(t, filepath.Join(outside, "rules"), filepath.Join(ws, ".gitignore"))
	res, err := tooltest.Run(t, New(Options{PureGo: true}), env, map[string]any{"pattern": "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tooltest.Text(res), "Found 1 file\na.txt"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
