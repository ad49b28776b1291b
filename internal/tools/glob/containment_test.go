package glob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/workspace"
)

// TestGlobContainment tries the spellings that could list files outside the
// workspace. A canary directory sits beside the workspace (and a sibling
// whose name extends the workspace's); its file names must never appear.
func TestGlobContainment(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	outside := t.TempDir()
	const canary = "CANARY_glob_7f3a.txt"
	for _, d := range []string{outside, ws + "-evil"} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{canary, "sub/" + canary} {
			if err := os.WriteFile(filepath.Join(d, p), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() { os.RemoveAll(ws + "-evil") })
	os.WriteFile(filepath.Join(ws, "inside.txt"), []byte("x"), 0o644)
	symlink(t, outside, filepath.Join(ws, "outdir"))
	symlink(t, filepath.Join(outside, canary), filepath.Join(ws, "outfile.txt"))
	symlink(t, filepath.Join(outside, "missing"), filepath.Join(ws, "dangling"))
	symlink(t, "missing", filepath.Join(ws, "dangling-in"))
	symlink(t, "outdir", filepath.Join(ws, "chain"))
	symlink(t, "/proc/self/root"+outside, filepath.Join(ws, "proc"))
	rel, err := filepath.Rel(ws, outside)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		in     map[string]any
		escape bool // refused as outside the workspace
	}{
		{name: "absolute pattern outside", in: map[string]any{"pattern": outside + "/**/*"}, escape: true},
		{name: "absolute pattern at root", in: map[string]any{"pattern": "/**/" + canary}, escape: true},
		{name: "dot dot pattern", in: map[string]any{"pattern": "../**/" + canary}, escape: true},
		{name: "dot dot to canary dir", in: map[string]any{"pattern": rel + "/*"}, escape: true},
		{name: "path outside", in: map[string]any{"pattern": "**/*", "path": outside}, escape: true},
		{name: "path dot dot", in: map[string]any{"pattern": "**/*", "path": ".."}, escape: true},
		{name: "sibling prefix dir", in: map[string]any{"pattern": "**/*", "path": ws + "-evil"}, escape: true},
		{name: "sibling prefix pattern", in: map[string]any{"pattern": ws + "-evil/**/*"}, escape: true},
		{name: "proc self root", in: map[string]any{"pattern": "/proc/self/root" + outside + "/*"}, escape: true},
		{name: "walk over links", in: map[string]any{"pattern": "**/*"}},
		{name: "pattern through dir link", in: map[string]any{"pattern": "outdir/**/*"}, escape: true},
		{name: "pattern through chain", in: map[string]any{"pattern": "chain/*"}, escape: true},
		{name: "pattern through proc link", in: map[string]any{"pattern": "proc/*"}, escape: true},
		{name: "path is a dir link", in: map[string]any{"pattern": "*", "path": "outdir"}, escape: true},
		{name: "path is a chain", in: map[string]any{"pattern": "**/*", "path": "chain/sub"}, escape: true},
		{name: "dangling link out", in: map[string]any{"pattern": "dangling/*"}, escape: true},
		{name: "dangling link in", in: map[string]any{"pattern": "dangling-in/*"}},
		{name: "name through file link", in: map[string]any{"pattern": "outfile.txt"}},
		{name: "wildcard through dir link", in: map[string]any{"pattern": "*/sub/*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := run(t, env, tt.in)
			if tt.escape {
				if !errors.Is(err, workspace.ErrOutside) {
					t.Fatalf("err = %v, output %q; want an escape error", err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(got, "CANARY") {
				t.Fatalf("canary listed:\n%s", got)
			}
			if strings.Contains(got, "outfile") || strings.Contains(got, "outdir") {
				t.Fatalf("link listed:\n%s", got)
			}
		})
	}
}
